"""The commands: ``skrank evaluate``, ``skrank compare``, ``skrank metrics``.

:func:`main` reads the arguments, runs the command and turns errors into one
line on standard error with the exit status.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import sys
import traceback
import warnings

from .._conventions import get_convention
from .._plugins import load_plugin
from .._results import QueryResults
from .._stats import compare
from .._validation import InvalidParameterError
from ..names import (
    RANKING,
    TREC_EVAL_DOT_PARAMS,
    TREC_EVAL_RUNID,
    TREC_EVAL_SETS,
    get_metric,
    quote_text,
    read_metrics,
    split_names,
    trec_eval_set_missing,
    trec_gain_table,
)
from ..trec._evaluation import evaluate_run_columns
from ..trec._readers import read_qrels, read_run
from ._shared import undefined_value, verbose_level
from .fuse import COMMAND as _FUSE
from .fuse import run as _fuse
from .parser import _PROG, DEFAULT_METRICS, _parser
from .recsys import COMMAND as _RECOMMENDATIONS
from .recsys import run as _recommendations
from .trec_eval_output import (
    _RELSTRING,
    _is_relstring,
    _names_metric,
    _relstring_request,
    _relstrings,
    _write_trec_eval,
)

__all__ = ["main"]


def _baseline(values, names):
    """``--baseline``, repeatable: a run name, or a position among the runs
    from 1; several give a list."""
    if values is None or len(values) == 1:
        return None if values is None else _one_baseline(values[0], names)
    return [_one_baseline(value, names) for value in values]


def _one_baseline(value, names):
    if value in names:
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
    verbose = verbose_level(args)
    qrels = read_qrels(args.qrels, verbose=verbose)
    runs = _read_runs(args, verbose)
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
            verbose=verbose,
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
            verbose=verbose,
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
            trec_gain_table(value) or read_metrics(value, prog, trec_eval=True)
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


def _used(args, option: str, default: str) -> str:
    """The value of ``option`` (``"ties"``, ``"queries"``) that evaluate_run
    applies for these options: the one given, else the --convention's, else
    ``default``."""
    if getattr(args, option) is not None:
        return getattr(args, option)
    if args.convention is not None:
        return getattr(get_convention(args.convention), option)
    return default


def _read_runs(args, verbose=0) -> list:
    """The runs, their scores read as the --convention reads them."""
    scores = "finite"
    if args.convention is not None:
        scores = get_convention(args.convention).run_scores
    return [read_run(path, scores=scores, verbose=verbose) for path in args.runs]


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
    verbose = verbose_level(args)
    qrels = read_qrels(args.qrels, verbose=verbose)
    runs = _read_runs(args, verbose)
    names = _run_names(runs, args.runs)
    undefined = undefined_value(args)
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
            verbose=verbose,
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
            "ties": _used(args, "ties", "average"),
            "convention": args.convention,
            "queries": _used(args, "queries", "intersection"),
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
        for module in args.plugin:
            load_plugin(module)
        if args.command == "metrics":
            _write_metrics(sys.stdout)
            return 0
        if args.command == "compare":
            return _compare(args, sys.stdout, prog)
        if args.command == _RECOMMENDATIONS:
            return _recommendations(args, sys.stdout)
        if args.command == _FUSE:
            return _fuse(args, sys.stdout)
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
