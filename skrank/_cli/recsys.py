"""``skrank recommendations``: recommender metrics of long tables.

The scores are a table ``user item score``, one row per candidate; the test
interactions ``user item [relevance]``; the training interactions ``user
item``. Tables are tab-separated (``.tsv``, ``.txt``), comma-separated
(``.csv``), either gzip-compressed (``.gz`` after the extension), or Parquet
(``.parquet``, read through pandas). A first line whose numeric column does
not read as a number, or that names the columns (``user item ...``), is a
header. Ids are read as text, so ``7`` in one file
is ``7`` in another whatever the format. The metrics are those of
:func:`skrank.recsys.evaluate_recommendations`, which the command calls.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import sys
import warnings

import numpy as np

from .._options import TIES
from .._validation import InvalidParameterError
from ..names import quote_text
from ..recsys import evaluate_recommendations, get_recsys_metric_names
from ..recsys._conventions import RECSYS_CONVENTIONS, get_recsys_convention
from ._shared import MAX_DIGITS, every_digit, undefined_option, undefined_value

__all__ = ["add_parser", "run"]

COMMAND = "recommendations"

#: The separators of the text tables, by extension.
_SEPARATORS = {".tsv": "\t", ".txt": "\t", ".csv": ","}
_PARQUET = (".parquet", ".pq")


def add_parser(sub) -> None:
    """Add ``skrank recommendations`` to the command line's subparsers."""
    rec = sub.add_parser(
        COMMAND,
        help="evaluate recommendations: long tables of scores and interactions",
        description="Evaluate a recommender from long tables: its scores "
        "(user item score, one row per candidate), the test interactions "
        "(user item [relevance]) and the training interactions (user item). "
        "Tables are TSV (.tsv, .txt), CSV (.csv), optionally gzip-compressed "
        "(.gz), or Parquet (.parquet, needs pandas); a header line (the "
        "column names) is skipped. Every metric is exact under ties (see "
        "skrank.recsys.evaluate_recommendations).",
    )
    rec.add_argument(
        "--scores", required=True, metavar="FILE", help="user item score table"
    )
    rec.add_argument(
        "--interactions",
        metavar="FILE",
        help="test interactions: user item [relevance] (relevance 1 when absent)",
    )
    rec.add_argument(
        "--train",
        metavar="FILE",
        help="training interactions: user item (popularity for novelty, arp, "
        "aplt; the user's history for serendipity)",
    )
    rec.add_argument(
        "--exclude-train",
        action="store_true",
        help="remove the training pairs from the candidates before ranking",
    )
    rec.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help="a metric name, repeatable, with parameters and a cutoff "
        "(ndcg@10, fbeta(beta=2)@5, novelty(share=interactions)): "
        + ", ".join(get_recsys_metric_names())
        + ". Default: precision, recall, ndcg, map, hit_rate, mrr",
    )
    rec.add_argument(
        "-k",
        type=int,
        default=10,
        metavar="K",
        help="the length of the lists, for names without @k (default: 10)",
    )
    rec.add_argument(
        "--ties",
        default=None,
        choices=list(TIES),
        help="order of tied scores: the expectation over all orderings "
        "(default, or the --convention's), its bounds, or the file order",
    )
    rec.add_argument(
        "--users",
        default=None,
        metavar="USERS",
        help="users evaluated: relevant (with a relevant item; default), "
        "listed (also with a candidate) or all",
    )
    undefined_option(
        rec, "a user where a metric is undefined", "default without --convention"
    )
    rec.add_argument(
        "--convention",
        default=None,
        choices=[c.name for c in RECSYS_CONVENTIONS],
        help="reproduce a tool's numbers: "
        + "; ".join(f"{c.name}: {c.tool}" for c in RECSYS_CONVENTIONS)
        + " (options given explicitly win over it)",
    )
    rec.add_argument(
        "--format",
        default="table",
        choices=["table", "json"],
        help="output format (default: table)",
    )
    rec.add_argument(
        "--digits",
        type=every_digit,
        default=4,
        help=f"decimals in the table, 0 to {MAX_DIGITS} (default: 4)",
    )


def _extension(path: str) -> tuple[str, bool]:
    """The table's extension (lower case) and whether it is gzip-compressed."""
    name = path.lower()
    gz = name.endswith(".gz")
    if gz:
        name = name[:-3]
    dot = name.rfind(".")
    return (name[dot:] if dot >= 0 else ""), gz


def _rows(path: str, option: str):
    """The rows of a text table, or the columns of a Parquet one."""
    ext, gz = _extension(path)
    if ext in _PARQUET and not gz:
        try:
            import pandas as pd
        except ImportError:
            raise InvalidParameterError(
                f"{option} {quote_text(path)}: reading Parquet needs pandas "
                "(with pyarrow); give a TSV or CSV table instead."
            ) from None
        frame = pd.read_parquet(path)
        return [frame.iloc[:, j].to_numpy() for j in range(frame.shape[1])], False
    if ext not in _SEPARATORS:
        known = ", ".join([*_SEPARATORS, *_PARQUET])
        raise InvalidParameterError(
            f"{option} {quote_text(path)}: the table's format is read from its "
            f"extension, one of {known} (text ones optionally followed by .gz); "
            f"got {quote_text(ext or 'none')}."
        )
    opener = gzip.open if gz else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        text = f.read()
    reader = csv.reader(io.StringIO(text), delimiter=_SEPARATORS[ext])
    return [row for row in reader if row and any(c.strip() for c in row)], True


def _number(text) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_table(path: str, option: str, columns: tuple, optional: int = 0):
    """The columns of a table: ids as text, the numeric ones as float64.

    ``columns`` names the columns (``("user", "item", "score")``), the last
    ``optional`` of them may be absent; a column named ``"user"`` or
    ``"item"`` holds ids, the others numbers. Extra columns are ignored.
    """
    data, text = _rows(path, option)
    least = len(columns) - optional
    if not text:  # Parquet: columns already
        if len(data) < least:
            raise InvalidParameterError(
                f"{option} {quote_text(path)} must have the columns "
                f"{' '.join(columns)}; got {len(data)} column(s)."
            )
        cols = data[: len(columns)]
        row = "row"
    else:
        numeric = [j for j, c in enumerate(columns) if c not in ("user", "item")]
        first = data[0] if data else []
        names = [c.strip().lower() for c in first[: len(columns)]]
        if first and (
            any(j < len(first) and _number(first[j]) is None for j in numeric)
            or names == list(columns[: len(names)])
        ):
            data = data[1:]  # a header line
        # the columns the longest row gives, which every row must give
        width = min(len(columns), max((len(r) for r in data), default=least))
        width = max(width, least)
        short = next((i for i, r in enumerate(data) if len(r) < width), None)
        if short is not None:
            raise InvalidParameterError(
                f"{option} {quote_text(path)} must have the columns "
                f"{' '.join(columns[:width])} in every row; data row "
                f"{short + 1} has {len(data[short])} field(s)."
            )
        cols = [[r[j].strip() for r in data] for j in range(width)]
        row = "data row"
    out = []
    for name, col in zip(columns, cols, strict=False):
        if name in ("user", "item"):
            out.append(np.asarray([str(v) for v in col], dtype=object))
            continue
        try:
            values = np.asarray(col, dtype=np.float64)
            bad = np.flatnonzero(~np.isfinite(values))
        except (TypeError, ValueError):
            bad = np.flatnonzero([_number(v) is None for v in col])
        if bad.size:
            raise InvalidParameterError(
                f"{option} {quote_text(path)}: the {name} column must hold "
                f"finite numbers; {row} {bad[0] + 1} has "
                f"{quote_text(str(col[bad[0]]))}."
            )
        out.append(values)
    if not out or not out[0].size:
        raise InvalidParameterError(f"{option} {quote_text(path)} has no rows.")
    return tuple(out)


def run(args, out) -> int:
    """Run ``skrank recommendations`` with the parsed ``args``."""
    metrics = args.metrics
    if metrics is not None:
        metrics = [m for m in metrics if m.strip()]
    if args.k < 1:
        raise InvalidParameterError(
            f"-k must be an integer of at least 1. Got {args.k} instead."
        )
    scores = read_table(args.scores, "--scores", ("user", "item", "score"))
    interactions = None
    if args.interactions is not None:
        interactions = read_table(
            args.interactions,
            "--interactions",
            ("user", "item", "relevance"),
            optional=1,
        )
    train = None
    if args.train is not None:
        train = read_table(args.train, "--train", ("user", "item"))
    if args.exclude_train and train is None:
        raise InvalidParameterError("--exclude-train needs --train FILE.")
    undefined = undefined_value(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate_recommendations(
            scores,
            interactions,
            k=args.k,
            metrics=metrics,
            exclude=train if args.exclude_train else None,
            train=train,
            ties=args.ties,
            users=args.users,
            replace_undefined_by=undefined,
            convention=args.convention,
        )
    for message in dict.fromkeys(str(w.message) for w in caught):
        text = " ".join(message.splitlines())
        sys.stderr.write(f"skrank {COMMAND}: warning: {text}\n")
    if args.format == "json":
        conv = get_recsys_convention(args.convention, "--convention")
        payload = {
            "scores": args.scores,
            "interactions": args.interactions,
            "train": args.train,
            "exclude_train": args.exclude_train,
            "k": args.k,
            "ties": args.ties or (conv.ties if conv else "average"),
            "users": args.users,
            "convention": args.convention,
            "metrics": {
                name: None if math.isnan(v) else float(v) for name, v in result.items()
            },
        }
        json.dump(payload, out, indent=2, allow_nan=False)
        out.write("\n")
        return 0
    width = max(22, *(len(name) for name in result))
    for name, value in result.items():
        cell = "nan" if math.isnan(value) else f"{value:.{args.digits}f}"
        out.write(f"{name:<{width}}\tall\t{cell}\n")
    return 0
