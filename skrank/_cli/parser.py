"""The command line's arguments: the commands and their options.

Choices and defaults come from the functions the commands call
(:func:`~skrank.trec.evaluate_run`, :func:`~skrank.compare`), so the command
line offers exactly what they accept.
"""

from __future__ import annotations

import argparse
import inspect

from .._conventions import CONVENTIONS
from .._stats import _CONSTRAINTS as _COMPARE_CONSTRAINTS
from .._stats import compare
from .._validation import NONE, Options
from ..trec._evaluation import evaluate_run
from ..trec._settle import RUN_CONSTRAINTS as _RUN_CONSTRAINTS
from ._shared import (
    MAX_DIGITS,
    digits_type,
    every_digit,
    level_type,
    progress_option,
    undefined_option,
)
from .fuse import add_parser as _fuse_parser
from .recsys import add_parser as _recommendations_parser

__all__ = ["DEFAULT_METRICS", "MAX_DIGITS"]

# The measures printed when no -m is given (--format trec_eval: trec_eval's
# own default, its "official" measures).
DEFAULT_METRICS = (
    "map",
    "r_precision",
    "mrr",
    "ndcg",
    "ndcg@10",
    "P@10",
    "recall@100",
    "bpref",
)


_PROG = "skrank evaluate"


def _choices(parameter: str, constraints=_RUN_CONSTRAINTS) -> list[str]:
    """The values a function accepts for ``parameter``, from its constraints
    (evaluate_run's by default); ``None``, where accepted, is ``"none"``."""
    (options,) = [c for c in constraints[parameter] if isinstance(c, Options)]
    extra = ["none"] if NONE in constraints[parameter] else []
    return list(options.values) + extra


_RUN_DEFAULTS = {
    name: p.default for name, p in inspect.signature(evaluate_run).parameters.items()
}
_COMPARE_DEFAULTS = {
    name: p.default for name, p in inspect.signature(compare).parameters.items()
}


#: The defaults and the constraints of the parameters of evaluate_run and
#: compare, that the options of ``evaluate`` and ``compare`` take.
_DECLARED = {
    "run": (_RUN_DEFAULTS, _RUN_CONSTRAINTS),
    "compare": (_COMPARE_DEFAULTS, _COMPARE_CONSTRAINTS),
}


def _choice_option(parser, parameter: str, help: str, of: str = "run") -> None:
    """Add the option ``--<parameter>`` (``_`` spelled ``-``) to ``parser``:
    one of the values that ``parameter`` of evaluate_run (``of="run"``) or
    compare (``of="compare"``) accepts, with its default."""
    defaults, constraints = _DECLARED[of]
    parser.add_argument(
        "--" + parameter.replace("_", "-"),
        default=defaults[parameter],
        choices=_choices(parameter, constraints),
        help=help,
    )


_report_digits = digits_type("--format json")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skrank",
        description="Ranking evaluation: tie-aware metrics, trec_eval's numbers "
        "on request.",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # --version unwrapped
    )
    from .._show_versions import short_version

    parser.add_argument("--version", action="version", version=short_version())
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first, which registers metrics of its own "
        "(skrank.register_metric); may be repeated",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    ev = sub.add_parser(
        "evaluate",
        help="evaluate TREC runs against qrels",
        description="Evaluate one or more TREC runs (qid iter docno rank score "
        "runid) against qrels (qid iter docno relevance). Files may be "
        "gzip-compressed. Several runs are printed side by side.",
    )
    ev.add_argument("qrels", metavar="QRELS", help="qrels file")
    ev.add_argument("runs", metavar="RUN", nargs="+", help="run file(s)")
    ev.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help="a metric name, repeatable: skrank's (ndcg@10, map, P@5, "
        "recall@100, mrr, bpref, rbp(p=0.9), ...), trec_eval's (P.5,10, "
        "ndcg_cut.10, recip_rank, Rprec; a bare family such as P or recall at "
        "trec_eval's default cutoffs; the sets official, all_trec, set), "
        "ir_measures' (nDCG@10, R@100, SetP) or ranx's (r-precision, map-l2); "
        "see skrank metrics. Default: "
        + ", ".join(DEFAULT_METRICS)
        + " (--format trec_eval: official, as trec_eval)",
    )
    ev.add_argument(
        "-q",
        "--per-query",
        action="store_true",
        help="also print the value of every query",
    )
    _choice_option(
        ev,
        "ties",
        "order of tied scores: the expectation over all orderings "
        "(default), its bounds, the file order, or trec_eval's (docno "
        "descending)",
    )
    _choice_option(
        ev,
        "queries",
        "queries averaged: those in both files (default, as trec_eval, "
        "unless the --convention says otherwise), every qrels query with "
        "missing ones scoring 0 (trec_eval -c), or every run query",
    )
    ev.add_argument(
        "-l",
        "--relevance-level",
        type=level_type,
        default=_RUN_DEFAULTS["relevance_level"],
        metavar="LEVEL",
        help="relevance >= LEVEL is relevant for the binary metrics "
        "(trec_eval -l); nDCG keeps graded gains",
    )
    _choice_option(
        ev,
        "score_dtype",
        "float32 reproduces trec_eval 9.0.8 and pytrec_eval (default: "
        "float64, or the --convention's)",
    )
    undefined_option(
        ev,
        "a query without relevant document",
        "as trec_eval, the default without --convention",
    )
    _convention_options(ev)
    progress_option(ev)
    ev.add_argument(
        "--format",
        default="table",
        choices=["table", "csv", "json", "trec_eval"],
        help="output format (default: table); trec_eval: trec_eval's own "
        "output, line for line (its measure names, 4 decimals, counts as "
        "integers, runid and num_q lines) for one run, with trec_eval's tie "
        "order unless --ties or --convention says otherwise",
    )
    ev.add_argument(
        "--digits",
        type=every_digit,
        default=4,
        help=f"decimals in the table, 0 to {MAX_DIGITS} (default: 4, as trec_eval)",
    )

    _compare_parser(sub)
    _recommendations_parser(sub)
    _fuse_parser(sub)

    sub.add_parser(
        "metrics",
        help="list the metrics, their other names and what they are",
        description="List every metric that -m accepts: its name, its other "
        "names (other tools' spellings among them) and what it measures.",
    )
    return parser


def _compare_parser(sub) -> None:
    cmp = sub.add_parser(
        "compare",
        help="compare TREC runs query by query, with paired tests",
        description="Compare two or more TREC runs against the same qrels: the "
        "mean of every run and metric with a confidence interval, and for "
        "every pair (or every run against --baseline) the mean difference, its "
        "interval and a paired test, with the p-values adjusted for the whole "
        "family of tests. See skrank.compare.",
    )
    cmp.add_argument("qrels", metavar="QRELS", help="qrels file")
    cmp.add_argument("runs", metavar="RUN", nargs="+", help="two or more run files")
    cmp.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        required=True,
        metavar="METRIC",
        help="a metric name, repeatable (as for skrank evaluate)",
    )
    cmp.add_argument(
        "--baseline",
        action="append",
        metavar="NAME_OR_INDEX",
        help="compare every run to this one: its name (run id, as printed) or "
        "its position among the RUN arguments, from 1; repeatable, to compare "
        "every run to each baseline. Default: every pair",
    )
    _choice_option(
        cmp, "test", "paired two-sided test (default: %(default)s)", of="compare"
    )
    _choice_option(
        cmp,
        "correction",
        "adjustment of the p-values over all pairs and metrics (default: %(default)s)",
        of="compare",
    )
    _choice_option(
        cmp, "interval", "confidence intervals (default: %(default)s)", of="compare"
    )
    cmp.add_argument(
        "--confidence",
        type=float,
        default=_COMPARE_DEFAULTS["confidence_level"],
        metavar="LEVEL",
        help="level of the intervals; 1 - LEVEL is the significance level "
        "(default: %(default)s)",
    )
    cmp.add_argument(
        "--resamples",
        type=int,
        default=_COMPARE_DEFAULTS["n_resamples"],
        metavar="N",
        help="resamples of the bootstrap and randomization (default: %(default)s)",
    )
    cmp.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of the resampling: the same seed gives the same output",
    )
    _choice_option(
        cmp,
        "queries",
        "queries compared: those every run has (default), the same "
        "queries in every run or an error, or every query with missing values "
        "counting 0",
        of="compare",
    )
    _choice_option(
        cmp,
        "ties",
        "order of tied scores (as for skrank evaluate)",
    )
    cmp.add_argument(
        "--format",
        default="table",
        choices=["table", "markdown", "latex", "json"],
        help="output: plain-text tables (default), a Markdown or LaTeX "
        "(booktabs) table of the means as in a paper, or JSON",
    )
    cmp.add_argument(
        "--ci",
        action="store_true",
        help="markdown and latex: also give the interval of every mean",
    )
    _convention_options(cmp)
    progress_option(cmp)
    cmp.add_argument(
        "--tie-bounds",
        action="store_true",
        help="also evaluate every run under the pessimistic and optimistic "
        "orderings of tied documents: the tables give the range of every mean "
        "and difference over those orderings (markdown and latex: of every mean)",
    )
    cmp.add_argument(
        "--digits",
        type=_report_digits,
        default=3,
        help="markdown and latex: decimals (default: 3)",
    )


def _convention_options(parser):
    """``--convention`` and ``--nonpositive``, of evaluate and compare."""
    parser.add_argument(
        "--convention",
        default=None,
        choices=[c.name for c in CONVENTIONS],
        help="reproduce another tool's numbers: its gains, denominators, tie "
        "order and value of a query without relevant documents (options "
        "given explicitly win over it)",
    )
    parser.add_argument(
        "--nonpositive",
        default=None,
        choices=_choices("nonpositive"),
        help="what a score <= 0 means: an ordinary score (default without "
        "--convention) or a document not retrieved (torchmetrics)",
    )
