"""``skrank fuse``: fuse TREC runs into one run file.

``skrank fuse RUN... --method rrf [--norm min-max] [--weights 0.3 0.7]
[--param k=60] [--qrels QRELS] [--run-name NAME] [-o fused.run]`` reads the
runs, fuses them with :func:`skrank.fusion.fuse` and writes the fused run
with :meth:`skrank.trec.Run.to_trec` (gzip-compressed when the output ends
with ``.gz``; to standard output with ``-o -`` or no ``-o``). Each option is
checked by the function that reads it; its error is one line naming the
option.
"""

from __future__ import annotations

import sys

from .._validation import InvalidParameterError
from ..fusion import fuse, get_fusion_method_names, get_normalization_names
from ..fusion._fuse import check_params, check_weights, resolve_method, resolve_norm
from ..names import quote_text, read_number
from ..trec import read_run
from ._shared import level_type, progress_option, verbose_level

__all__ = ["COMMAND", "add_parser", "run"]

COMMAND = "fuse"
_PROG = f"skrank {COMMAND}"


def add_parser(sub) -> None:
    """Add ``skrank fuse`` to the command line's subparsers."""
    fu = sub.add_parser(
        COMMAND,
        help="fuse TREC runs into one run (RRF, CombMNZ, ...)",
        description="Fuse two or more TREC runs (qid iter docno rank score "
        "runid; files may be gzip-compressed) into one run, written as a TREC "
        "run file. Each run is normalised per query (--norm), then the runs "
        "are combined per (query, document) by --method. A document no run "
        "retrieved for a query is absent from the fused run; a query some "
        "runs lack is fused from the runs that hold it. Tied scores stay "
        "tied. See skrank.fusion.fuse.",
    )
    fu.add_argument("runs", metavar="RUN", nargs="+", help="run files")
    fu.add_argument(
        "--method",
        default="rrf",
        metavar="METHOD",
        help="fusion method, by name or alias (ranx's names among them): "
        + ", ".join(get_fusion_method_names())
        + " (default: %(default)s)",
    )
    fu.add_argument(
        "--norm",
        default=None,
        metavar="NORM",
        help="normalisation of each run first: "
        + ", ".join(get_normalization_names())
        + " (default: none, the scores as they are)",
    )
    fu.add_argument(
        "--weights",
        nargs="+",
        type=level_type,
        metavar="W",
        help="one non-negative weight per RUN, in order, for the weighted "
        "methods (wsum, wmnz, mixed, w_bordafuse, w_condorcet)",
    )
    fu.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the method (k=60 for rrf, phi=0.8 for rbc, ...); "
        "repeatable",
    )
    fu.add_argument(
        "--qrels",
        metavar="QRELS",
        help="qrels file the supervised methods (posfuse, probfuse, mapfuse, "
        "bayesfuse) are trained on",
    )
    fu.add_argument(
        "--run-name",
        metavar="NAME",
        help="run id of the fused run's lines (default: the method's name)",
    )
    fu.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="FILE",
        help="output file, gzip-compressed when it ends with .gz; - (the "
        "default) writes to standard output",
    )
    progress_option(fu)


def _params(values) -> dict:
    """``--param NAME=VALUE`` options as ``{name: number}``."""
    out = {}
    for text in values:
        name, eq, value = text.partition("=")
        number, rule = read_number(value) if eq else (None, "NAME=NUMBER")
        if rule is not None or not name.strip():
            raise InvalidParameterError(
                f"must be NAME=NUMBER (k=60); got {quote_text(text)}."
            )
        out[name.strip()] = int(number) if float(number).is_integer() else number
    return out


def _checked(option: str, check, *args):
    """``check(*args)``, its error prefixed by the option it concerns."""
    try:
        return check(*args)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{option}: {exc}") from None


def run(args, out=None) -> int:
    """Run ``skrank fuse`` with parsed ``args``; 0 on success."""
    spec = _checked("--method", resolve_method, args.method, _PROG)
    _checked("--norm", resolve_norm, args.norm, _PROG)
    params = _checked("--param", _params, args.param)
    _checked("--param", check_params, spec, params, _PROG)
    _checked("--weights", check_weights, args.weights, spec, len(args.runs), _PROG)
    if spec.train is not None and args.qrels is None:
        raise InvalidParameterError(
            f"--qrels: the method {spec.name!r} is trained on judgments; give "
            "the qrels file with --qrels QRELS."
        )
    if spec.train is None and args.qrels is not None:
        raise InvalidParameterError(
            f"--qrels: the method {spec.name!r} learns nothing; --qrels "
            "applies to the supervised methods only."
        )
    verbose = verbose_level(args)
    runs = [read_run(path, verbose=verbose) for path in args.runs]
    fused = fuse(
        runs,
        spec.name,
        args.norm,
        weights=args.weights,
        qrels=args.qrels,
        name=args.run_name or spec.name,
        verbose=verbose,
        **params,
    )
    if args.output != "-":
        fused.to_trec(args.output)
        return 0
    out = sys.stdout if out is None else out
    out.flush()
    fused.to_trec(getattr(out, "buffer", out))
    return 0
