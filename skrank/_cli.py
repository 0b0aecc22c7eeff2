"""The ``skrank`` command line (also ``python -m skrank``).

``skrank evaluate QRELS RUN [RUN ...] -m ndcg@10 -m map`` prints a table like
trec_eval's: one line per metric (and per query with ``-q``), one value column
per run. ``skrank compare QRELS RUN1 RUN2 -m map`` compares runs query by
query (intervals, paired tests, corrections; see :func:`skrank.compare`).
``skrank metrics`` lists the metric names.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import re
import shlex
import sys
import traceback
import warnings

from ._conventions import CONVENTIONS, get_convention
from ._registry import (
    RANKING,
    TREC_EVAL_DOT_PARAMS,
    TREC_EVAL_RUNID,
    TREC_EVAL_SETS,
    TREC_EVAL_SUMMARY_ONLY,
    _trec_gain_table,
    get_metric,
    quote_text,
    read_metrics,
    read_number,
    split_names,
    trec_eval_printed_name,
    trec_eval_rank,
    trec_eval_set_missing,
)
from ._results import QueryResults
from ._stats import _CONSTRAINTS as _COMPARE_CONSTRAINTS
from ._stats import compare
from ._validation import NONE, InvalidParameterError, Options
from .trec._evaluation import RUN_CONSTRAINTS as _RUN_CONSTRAINTS
from .trec._evaluation import evaluate_run, evaluate_run_columns, metric_requests
from .trec._readers import read_qrels, read_run

__all__ = ["main"]

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


#: The most decimals ``--digits`` accepts: a float64 has at most 17
#: significant digits (``--format csv`` and ``json`` give every one).
MAX_DIGITS = 17

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


def _digits_option(every_digit: str):
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


_digits = _digits_option("--format csv or json")
_report_digits = _digits_option("--format json")


def _level(text: str) -> float:
    """``-l``: a finite number, spelled as in a metric name (``rel=``)."""
    value, rule = read_number(text)
    if rule is not None:
        raise argparse.ArgumentTypeError(
            f"must be {rule}. Got {quote_text(text)} instead."
        )
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skrank",
        description="Ranking evaluation: tie-aware metrics, trec_eval's numbers "
        "on request.",
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"skrank {__version__}")
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
    ev.add_argument(
        "--ties",
        default=_RUN_DEFAULTS["ties"],
        choices=_choices("ties"),
        help="order of tied scores: the expectation over all orderings "
        "(default), its bounds, the file order, or trec_eval's (docno "
        "descending)",
    )
    ev.add_argument(
        "--queries",
        default=_RUN_DEFAULTS["queries"],
        choices=_choices("queries"),
        help="queries averaged: those in both files (default, as trec_eval, "
        "unless the --convention says otherwise), every qrels query with "
        "missing ones scoring 0 (trec_eval -c), or every run query",
    )
    ev.add_argument(
        "-l",
        "--relevance-level",
        type=_level,
        default=_RUN_DEFAULTS["relevance_level"],
        metavar="LEVEL",
        help="relevance >= LEVEL is relevant for the binary metrics "
        "(trec_eval -l); nDCG keeps graded gains",
    )
    ev.add_argument(
        "--score-dtype",
        default=_RUN_DEFAULTS["score_dtype"],
        choices=_choices("score_dtype"),
        help="float32 reproduces trec_eval 9.0.8 and pytrec_eval (default: "
        "float64, or the --convention's)",
    )
    ev.add_argument(
        "--undefined",
        default=None,
        choices=["0", "1", "nan"],
        help="value of a query without relevant document: 0 (as "
        "trec_eval, the default without --convention), 1 or nan (left out "
        "of the mean)",
    )
    _convention_options(ev)
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
        type=_digits,
        default=4,
        help=f"decimals in the table, 0 to {MAX_DIGITS} (default: 4, as trec_eval)",
    )

    _compare_parser(sub)

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
        metavar="NAME_OR_INDEX",
        help="compare every run to this one: its name (run id, as printed) or "
        "its position among the RUN arguments, from 1. Default: every pair",
    )
    cmp.add_argument(
        "--test",
        default=_COMPARE_DEFAULTS["test"],
        choices=_choices("test", _COMPARE_CONSTRAINTS),
        help="paired two-sided test (default: %(default)s)",
    )
    cmp.add_argument(
        "--correction",
        default=_COMPARE_DEFAULTS["correction"],
        choices=_choices("correction", _COMPARE_CONSTRAINTS),
        help="adjustment of the p-values over all pairs and metrics "
        "(default: %(default)s)",
    )
    cmp.add_argument(
        "--interval",
        default=_COMPARE_DEFAULTS["interval"],
        choices=_choices("interval", _COMPARE_CONSTRAINTS),
        help="confidence intervals (default: %(default)s)",
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
    cmp.add_argument(
        "--queries",
        default=_COMPARE_DEFAULTS["queries"],
        choices=_choices("queries", _COMPARE_CONSTRAINTS),
        help="queries compared: those every run has (default), the same "
        "queries in every run or an error, or every query with missing values "
        "counting 0",
    )
    cmp.add_argument(
        "--ties",
        default=_RUN_DEFAULTS["ties"],
        choices=_choices("ties"),
        help="order of tied scores (as for skrank evaluate)",
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


def _baseline(value, names):
    """``--baseline``: a run name, or a position among the runs from 1."""
    if value is None or value in names:
        return value
    if re.fullmatch("[0-9]+", value.strip()) and 1 <= int(value) <= len(names):
        return names[int(value) - 1]
    raise InvalidParameterError(
        f"--baseline must name a run ({', '.join(names)}) or give its position "
        f"among the runs, 1 to {len(names)}. Got {quote_text(value)} instead."
    )


def _compare(args, out, prog) -> int:
    if len(args.runs) < 2:
        raise InvalidParameterError(
            f"give at least two runs to compare; got {len(args.runs)}."
        )
    metrics = _metrics(args.metrics, prog)
    qrels = read_qrels(args.qrels)
    runs = _read_runs(args)
    names = _run_names(runs, args.runs)
    baseline = _baseline(args.baseline, names)
    results = {}
    for name, run in zip(names, runs, strict=True):
        _, qids, columns, bounds = evaluate_run_columns(
            qrels,
            run,
            metrics,
            ties=args.ties,
            tie_bounds=args.tie_bounds,
            nonpositive=args.nonpositive,
            convention=args.convention,
        )
        results[name] = QueryResults(columns, [str(q) for q in qids], bounds)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare(
            results,
            baseline=baseline,
            test=args.test,
            correction=None if args.correction == "none" else args.correction,
            interval=args.interval,
            confidence_level=args.confidence,
            n_resamples=args.resamples,
            queries=args.queries,
            random_state=args.seed,
        )
    for w in dict.fromkeys(str(w.message) for w in caught):
        sys.stderr.write(f"{prog}: warning: {' '.join(w.splitlines())}\n")
    if args.format == "json":
        payload = {
            "qrels": args.qrels,
            "runs": dict(zip(names, args.runs, strict=True)),
            **res.to_dict(),
        }
        json.dump(payload, out, indent=2, allow_nan=False)
    elif args.format == "markdown":
        out.write(
            res.to_markdown(digits=args.digits, ci=args.ci, tie_bounds=args.tie_bounds)
        )
    elif args.format == "latex":
        out.write(
            res.to_latex(digits=args.digits, ci=args.ci, tie_bounds=args.tie_bounds)
        )
    else:
        out.write(repr(res))
    out.write("\n")
    return 0


def _run_names(runs, paths):
    """Column names: the run ids, or the file names where they clash."""
    names = [r.name or os.path.basename(p) for r, p in zip(runs, paths, strict=True)]
    if len(set(names)) < len(names):
        names = list(paths)
    seen = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def _format_cell(value, digits):
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return f"{value:.{digits}f}"


def _parses(name: str, prog: str = _PROG) -> bool:
    try:
        read_metrics(name, prog, trec_eval=True)
    except InvalidParameterError:
        return False
    return True


def _metric_error(value: str, exc: InvalidParameterError, prog: str = _PROG) -> str:
    """The message for a -m value that does not parse.

    Several names joined by commas (``-m ndcg@10,map``) get the command line
    that gives them (trec_eval's ``P.5,10`` parses, so never comes here).
    """
    pieces = split_names(value)
    parts = [p for p in pieces if p]
    base, dot, _ = value.strip().partition(".")
    if len(pieces) < 2 or not parts or (dot and base in TREC_EVAL_DOT_PARAMS):
        # trec_eval's utility.1,-1,0,0: one measure, its values after the dot
        return str(exc)
    hint = "give each metric with its own -m: " + " ".join(
        f"-m {shlex.quote(p)}" for p in parts
    )
    if all(_parses(p, prog) for p in parts):
        return f"-m {quote_text(value)} names {len(parts)} metrics; {hint}"
    return f"{exc} To give several metrics, {hint}"


def _metrics(values, prog: str = _PROG) -> list[str]:
    """The -m values, each checked before any file is read (read as trec_eval
    reads them); trec_eval's ``runid`` alone names no metric."""
    for value in values:
        if value.strip() == TREC_EVAL_RUNID:
            continue
        try:
            _trec_gain_table(value) or read_metrics(value, prog, trec_eval=True)
        except InvalidParameterError as exc:
            raise InvalidParameterError(_metric_error(value, exc, prog)) from None
    names = [v for v in values if v.strip() != TREC_EVAL_RUNID]
    if not names:
        raise InvalidParameterError(
            f"{prog}: give at least one metric besides {TREC_EVAL_RUNID!r}."
        )
    return names


def _asks_runid(values) -> bool:
    """Whether trec_eval would print the run's name for these -m values."""
    return any(
        v.strip() == TREC_EVAL_RUNID
        or TREC_EVAL_RUNID in TREC_EVAL_SETS.get(v.strip(), ())
        for v in values
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


def _ties_used(args) -> str:
    """The tie rule evaluate_run applies for these options."""
    if args.ties is not None:
        return args.ties
    if args.convention is not None:
        return get_convention(args.convention).ties
    return "average"


def _queries_used(args) -> str:
    """The queries evaluate_run scores for these options."""
    if args.queries is not None:
        return args.queries
    if args.convention is not None:
        return get_convention(args.convention).queries
    return "intersection"


def _read_runs(args) -> list:
    """The runs, their scores read as the --convention reads them."""
    scores = "finite"
    if args.convention is not None:
        scores = get_convention(args.convention).run_scores
    return [read_run(path, scores=scores) for path in args.runs]


def _evaluate(args, out) -> int:
    trec_format = args.format == "trec_eval"
    if trec_format and len(args.runs) > 1:
        raise InvalidParameterError(
            f"--format trec_eval prints one run, as trec_eval does; got "
            f"{len(args.runs)} runs. Give them one at a time, or use --format "
            "table, csv or json."
        )
    if trec_format and args.convention is None:
        args.convention = "trec_eval"  # trec_eval's output: its numbers too
    values = args.metrics or (["official"] if trec_format else DEFAULT_METRICS)
    relstring = _relstring_request(values) if trec_format else None
    if relstring is not None:
        values = [v for v in values if not _is_relstring(v)]
        # the -m values without relstring (num_ret where relstring is all:
        # it is computed for the one pass over the files, not printed)
        metrics = _metrics(values) if _names_metric(values) else ["num_ret"]
        printed = metrics if _names_metric(values) else []
    else:
        metrics = printed = _metrics(values)
    for value in dict.fromkeys(v.strip() for v in values):
        missing = trec_eval_set_missing(value) if value in TREC_EVAL_SETS else []
        if relstring is not None:
            missing = [m for m in missing if m != _RELSTRING]
        if missing:
            sys.stderr.write(
                f"{_PROG}: warning: trec_eval's {value!r} measures that skrank "
                f"does not compute are left out: {', '.join(missing)}\n"
            )
    qrels = read_qrels(args.qrels)
    runs = _read_runs(args)
    names = _run_names(runs, args.runs)
    undefined = {None: None, "0": 0.0, "1": 1.0, "nan": float("nan")}[args.undefined]
    means, tables, strings = [], [], None
    for run in runs:
        got = evaluate_run_columns(
            qrels,
            run,
            metrics,
            ties=args.ties,
            queries=args.queries,
            relevance_level=args.relevance_level,
            replace_undefined_by=undefined,
            score_dtype=args.score_dtype,
            nonpositive=args.nonpositive,
            convention=args.convention,
            head=None if relstring is None else relstring[1],
        )
        mean, qids, columns = got[:3]
        means.append(mean)
        tables.append(_as_columns(qids, columns))
        if relstring is not None:
            strings = (relstring[0], _relstrings(qids, got[4]))
            if relstring[0] == _RELSTRING:
                # trec_eval.c, main, clears the string of a query the run
                # misses (-c) by the printed name "relstring" only: a
                # relstring.<length> keeps its placeholder document's "-"
                retrieved = {str(q) for q in run.queries}
                for q in strings[1].keys() - retrieved:
                    strings[1][q] = ""
    metric_names = list(means[0])
    if trec_format:
        _write_trec_eval(
            out,
            printed,
            means[0],
            tables[0],
            runs[0],
            args,
            _asks_runid(values),
            strings,
        )
        return 0

    # per-query rows: queries of any run, in the order the tables give them
    queries = []
    if args.per_query:
        seen = set()
        for table in tables:
            for q in table["qid"]:
                if q not in seen:
                    seen.add(q)
                    queries.append(q)
    rows = []  # (metric, qid, [value per run])
    for q in queries:
        where = [t["index"].get(q) for t in tables]
        for name in metric_names:
            values = [
                None if i is None else t[name][i]
                for i, t in zip(where, tables, strict=True)
            ]
            rows.append((name, q, values))
    for name in metric_names:
        rows.append((name, "all", [m[name] for m in means]))

    if args.format == "json":
        payload = {
            "qrels": args.qrels,
            "ties": _ties_used(args),
            "convention": args.convention,
            "queries": _queries_used(args),
            "relevance_level": args.relevance_level,
            "runs": {},
        }
        for name, path, mean, table in zip(
            names, args.runs, means, tables, strict=True
        ):
            entry = {
                "file": path,
                "all": {k: _json_number(v) for k, v in mean.items()},
                "num_q": len(table["qid"]),
            }
            if args.per_query:
                entry["per_query"] = {
                    q: {k: _json_number(table[k][i]) for k in metric_names}
                    for i, q in enumerate(table["qid"])
                }
            payload["runs"][name] = entry
        json.dump(payload, out, indent=2, allow_nan=False)
        out.write("\n")
        return 0
    if args.format == "csv":
        import csv

        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["metric", "qid", *names])
        for metric, q, values in rows:
            writer.writerow(
                [metric, q, *("" if v is None else repr(float(v)) for v in values)]
            )
        return 0
    width = max(22, *(len(r[0]) for r in rows))
    qwidth = max(3, *(len(str(r[1])) for r in rows))
    if len(runs) > 1:
        out.write(
            "\t".join([f"{'metric':<{width}}", f"{'qid':<{qwidth}}", *names]) + "\n"
        )
    for metric, q, values in rows:
        cells = [_format_cell(v, args.digits) for v in values]
        if len(runs) > 1:
            cells = [c.ljust(len(n)) for c, n in zip(cells, names, strict=True)]
        out.write("\t".join([f"{metric:<{width}}", f"{q:<{qwidth}}", *cells]) + "\n")
    return 0


def _trec_eval_lines(names, convention):
    """The printed name of every key, trec_eval's where it has one (else the
    canonical name: a name as written, such as ``rbp``, could claim
    trec_eval's measure of that name), in trec_eval's order of printing (its
    table of measures; a family's cutoffs ascending); one line per printed
    name. The names are read as evaluate_run reads them under
    ``convention``."""
    rows = {}
    for key, spec in metric_requests(names, _PROG, convention):
        printed = trec_eval_printed_name(key, spec)
        rows.setdefault(printed, (key, spec))
    order = sorted(
        rows.items(),
        key=lambda item: (
            trec_eval_rank(item[0]),
            item[1][1].k or 0,
            tuple(v for v in item[1][1].params.values() if isinstance(v, float)),
        ),
    )
    return [(printed, key, spec) for printed, (key, spec) in order]


def _trec_eval_value(spec, value) -> str:
    """A value as trec_eval prints it: its counts as integers (``%ld`` of
    ``te_print_single_meas_s_long``), the rest ``%6.4f``."""
    if getattr(spec.measure, "aggregation", "mean") == "sum":
        return "nan" if math.isnan(value) else str(int(value))
    return f"{value:6.4f}"


_RELSTRING = "relstring"
# trec_eval's relstring length when none is written (m_relstring.c,
# relstring_len)
_RELSTRING_LENGTH = 10


def _is_relstring(value) -> bool:
    """Whether a -m value is trec_eval's relstring measure."""
    value = value.strip()
    return value == _RELSTRING or value.startswith(_RELSTRING + ".")


def _names_metric(values) -> bool:
    """Whether some -m value names a metric (not only runid)."""
    return any(v.strip() != TREC_EVAL_RUNID for v in values)


def _relstring_request(values):
    """``(printed name, length)`` of trec_eval's relstring if the -m values
    ask for it, else None. As in trec_eval (meas_init.c,
    te_init_meas_s_double_p_double and get_double_params), the first
    ``relstring.<params>`` written wins, its name is ``relstring_`` and the
    parameters as written, and its length is the first parameter, truncated
    toward zero (0 if negative); a set holding relstring (all_trec) asks for
    it at its default length."""
    asked = False
    for value in values:
        value = value.strip()
        if value.startswith(_RELSTRING + "."):
            text = value[len(_RELSTRING) + 1 :]
            first = text.split(",")[0]
            try:
                length = float(first)
            except ValueError:
                length = math.nan
            if not math.isfinite(length):
                raise InvalidParameterError(
                    "the length of -m relstring.<length> must be a "
                    f"finite number, such as relstring.5; got {value!r}."
                )
            return f"{_RELSTRING}_{text}", max(0, int(length))
        asked = asked or value == _RELSTRING
        asked = asked or _RELSTRING in TREC_EVAL_SETS.get(value, ())
    return (_RELSTRING, _RELSTRING_LENGTH) if asked else None


def _relstrings(qids, heads) -> dict:
    """trec_eval's relstring of every query (m_relstring.c,
    te_calc_relstring) from the judgments of its first documents in the
    engine's order (see evaluate_run_columns): the grade if 0 to 9, ``>``
    above 9, ``-`` outside the judgments, ``.`` judged below 0 (trec_eval
    reads every negative judgment as RELVALUE_UNJUDGED, form_res_rels.c, so
    its ``<`` never shows); nothing past the end of the list."""
    import numpy as np

    known = ~np.isnan(heads)
    grade = np.where(known, heads, 0.0)
    codes = np.zeros(heads.shape, dtype=np.uint8)  # 0: past the end
    digit = known & (grade >= 0) & (grade <= 9)
    codes[digit] = ord("0") + grade[digit].astype(np.uint8)
    codes[known & (grade > 9)] = ord(">")
    codes[known & (grade == -1)] = ord("-")
    codes[known & (grade == -2)] = ord(".")
    width = max(heads.shape[1], 1)
    padded = np.zeros((heads.shape[0], width), dtype=np.uint8)
    padded[:, : heads.shape[1]] = codes
    # each row as one byte string, whose trailing zero bytes numpy drops
    text = np.char.decode(padded.view(f"S{width}")[:, 0], "ascii").tolist()
    return dict(zip((str(q) for q in qids), text, strict=True))


def _write_trec_eval(out, names, mean, table, run, args, runid, strings=None):
    """trec_eval's output (meas_print_single.c, meas_print_final.c, m_runid.c):
    ``%-22s\t%s\t<value>`` lines, with ``-q`` every query (byte order of the
    ids, as trec_eval sorts them) before ``all``; under trec_eval 9's
    convention only the queries of the run. ``strings`` is ``(name,
    {qid: relstring})``: trec_eval's relstring, printed ``'%s'`` in its place
    among the measures for each query and never in the summary
    (m_relstring.c, te_print_q_relstring and te_print_relstring)."""
    lines = _trec_eval_lines(names, args.convention) if names else []
    if strings is not None:
        at = sum(trec_eval_rank(p) <= trec_eval_rank(_RELSTRING) for p, _, _ in lines)
        lines.insert(at, (strings[0], None, None))
    if args.per_query:
        shown = table["qid"]
        conv = get_convention(args.convention)
        if conv.names == "trec_eval" and conv.missing_queries != "placeholder":
            # trec_eval 9 evaluates the run's queries only (trec_eval.c); -c
            # changes its means, not the queries it prints
            retrieved = {str(q) for q in run.queries}
            shown = [q for q in shown if q in retrieved]
        for q in sorted(shown, key=lambda q: q.encode()):
            i = table["index"][q]
            for printed, key, spec in lines:
                if printed in TREC_EVAL_SUMMARY_ONLY:
                    continue
                if key is None:  # relstring
                    out.write(f"{printed:<22}\t{q}\t'{strings[1][q]}'\n")
                    continue
                value = _trec_eval_value(spec, table[key][i])
                out.write(f"{printed:<22}\t{q}\t{value}\n")
    if runid:
        out.write(f"{TREC_EVAL_RUNID:<22}\tall\t{run.last_name or ''}\n")
    for printed, key, spec in lines:
        if key is not None:
            out.write(f"{printed:<22}\tall\t{_trec_eval_value(spec, mean[key])}\n")


def _write_metrics(out) -> None:
    """``skrank metrics``: every metric with its other names and title."""
    for name in RANKING.names():
        measure = get_metric(name).measure
        others = [*measure.aliases, *(v for v, _ in measure.variants)]
        line = name
        if others:
            line += " (" + ", ".join(others) + ")"
        out.write(f"{line}\t{measure.title}\n")


def _as_columns(qids, columns):
    """The per-query values as plain lists, with an index of the query ids."""
    qids = [str(q) for q in qids]
    cols = {k: [float(x) for x in v] for k, v in columns.items()}
    cols["qid"] = qids
    cols["index"] = {q: i for i, q in enumerate(qids)}
    return cols


def _json_number(value):
    value = float(value)
    return None if math.isnan(value) else value


def _error(prog: str, message: str) -> None:
    """One line on standard error, as argparse writes its own errors."""
    message = " ".join(message.splitlines())
    sys.stderr.write(f"{prog}: error: {message}\n")


def _stdout_to_devnull() -> None:
    """After a broken pipe (``skrank ... | head``), drop what is left."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # no file descriptor (output captured in-process)


def main(argv: list[str] | None = None) -> int:
    """Run the ``skrank`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments (without the program name); ``None`` reads
        ``sys.argv``.

    Returns
    -------
    status : int
        0 on success; 2 for bad input, such as a metric name that does not
        parse or a file that cannot be read (one line ``skrank evaluate:
        error: ...``, or ``skrank compare: error: ...``, on standard error);
        1 for an internal error (a bug: one line naming it, no traceback);
        130 if interrupted. A malformed option raises :class:`SystemExit` with
        status 2, after argparse's usage and error lines.

    Examples
    --------
    >>> import os, tempfile
    >>> from skrank._cli import main
    >>> folder = tempfile.mkdtemp()
    >>> qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> with open(qrels, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> with open(run, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 0.5 bm25\\nq1 Q0 d2 2 0.5 bm25\\n")
    >>> main(["evaluate", qrels, run, "-m", "mrr", "-m", "P@1"])
    mrr                   	all	0.7500
    P@1                   	all	0.5000
    0
    >>> main(["evaluate", qrels, run, "-m", "mrr", "--ties", "trec_eval"])
    mrr                   	all	0.5000
    0

    trec_eval's own output, line for line:

    >>> main(["evaluate", qrels, run, "-m", "recip_rank", "-m", "P.1,2",
    ...       "-m", "num_ret", "--format", "trec_eval"])
    num_ret               	all	2
    recip_rank            	all	0.5000
    P_1                   	all	0.0000
    P_2                   	all	0.5000
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    prog = f"skrank {args.command}"
    try:
        if args.command == "metrics":
            _write_metrics(sys.stdout)
            return 0
        if args.command == "compare":
            return _compare(args, sys.stdout, prog)
        return _evaluate(args, sys.stdout)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _stdout_to_devnull()
        return 1
    except (ValueError, OSError, EOFError) as exc:
        # skrank's own errors (InvalidParameterError is a ValueError), files
        # that cannot be read or decoded
        _error(prog, str(exc) or type(exc).__name__)
        return 2
    except MemoryError:
        _error(prog, "not enough memory")
        return 1
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        _error(
            prog,
            f"internal error ({type(exc).__name__}: {exc}, at "
            f"{os.path.basename(frame.filename)}:{frame.lineno}); please report "
            "it with the command line that raised it",
        )
        return 1
