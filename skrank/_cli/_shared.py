"""Options that several commands share, declared once."""

from __future__ import annotations

__all__ = ["undefined_option", "undefined_value"]


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
