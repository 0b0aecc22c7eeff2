"""Options that several commands share, declared once."""

from __future__ import annotations

import argparse
import re
import sys

from ..names import quote_text, read_number

__all__ = [
    "MAX_DIGITS",
    "digits_type",
    "every_digit",
    "level_type",
    "progress_option",
    "undefined_option",
    "undefined_value",
    "verbose_level",
]

#: The most decimals ``--digits`` accepts: a float64 has at most 17
#: significant digits (``--format csv`` and ``json`` give every one).
MAX_DIGITS = 17


def digits_type(every_digit: str):
    """The type of a ``--digits`` option: an integer from 0 to MAX_DIGITS;
    ``every_digit`` names the formats that print every digit."""

    def digits(text: str) -> int:
        text = text.strip()
        if re.fullmatch("[0-9]{1,3}", text) is None or int(text) > MAX_DIGITS:
            raise argparse.ArgumentTypeError(
                f"must be an integer from 0 to {MAX_DIGITS} ({every_digit} "
                f"gives every digit). Got {quote_text(text)} instead."
            )
        return int(text)

    return digits


#: ``--digits`` of the commands whose csv and json formats give every digit.
every_digit = digits_type("--format csv or json")


def level_type(text: str) -> float:
    """``-l``: a finite number, spelled as in a metric name (``rel=``)."""
    value, rule = read_number(text)
    if rule is not None:
        raise argparse.ArgumentTypeError(
            f"must be {rule}. Got {quote_text(text)} instead."
        )
    return value


def progress_option(parser) -> None:
    """``--progress``/``--no-progress``: progress on stderr."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show the progress of reading and evaluating on stderr (default: "
        "when stderr is a terminal)",
    )


def verbose_level(args) -> int:
    """1 (progress on stderr) with --progress, or by default when stderr is a
    terminal; 0 with --no-progress."""
    shown = args.progress
    if shown is None:
        shown = sys.stderr is not None and sys.stderr.isatty()
    return int(shown)


def undefined_option(parser, subject: str, default: str) -> None:
    """``--undefined``: the value of a ``subject`` where a metric is undefined.

    ``default`` says what happens without the option.
    """
    parser.add_argument(
        "--undefined",
        default=None,
        choices=["0", "1", "nan"],
        help=f"value of {subject}: 0 ({default}), 1 or nan (left out of the mean)",
    )


def undefined_value(args) -> float | None:
    """The ``replace_undefined_by`` value ``--undefined`` asks for (None: unset)."""
    return None if args.undefined is None else float(args.undefined)
