"""trec_eval's own output (``skrank evaluate --format trec_eval``).

Its measure names, order of printing, number formats, ``runid`` and ``num_q``
lines and its ``relstring`` measure, line for line.
"""

from __future__ import annotations

import math

from .._conventions import get_convention
from .._validation import InvalidParameterError
from ..names import (
    TREC_EVAL_RUNID,
    TREC_EVAL_SETS,
    TREC_EVAL_SUMMARY_ONLY,
    trec_eval_printed_name,
    trec_eval_rank,
)
from ..trec._io import _strtod
from ..trec._settle import metric_requests
from .parser import _PROG


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
    ``te_print_single_meas_s_long``), the rest ``%6.4f``, where glibc's
    ``printf`` writes a NaN ``nan``, or ``-nan`` when its sign bit is set
    (trec_eval's ``0.0 / 0.0``)."""
    if getattr(spec.measure, "aggregation", "mean") == "sum":
        return "nan" if math.isnan(value) else str(int(value))
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
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
    parameters as written, and its length is the first parameter read by C's
    ``atof`` (``relstring.x`` is 0, ``relstring.3abc`` 3, ``relstring.0x10``
    16), then cast to ``long`` as m_relstring.c's ``te_calc_relstring``
    casts it (``len = MIN((long) params[0], res_rels.num_ret)``): truncated
    toward zero, 0 if negative; a value a ``long`` cannot hold (``inf``,
    ``nan``, ``1e30``), whose conversion C leaves undefined, is an error; a
    set holding relstring (all_trec) asks for it at its default length."""
    asked = False
    for value in values:
        value = value.strip()
        if value.startswith(_RELSTRING + "."):
            text = value[len(_RELSTRING) + 1 :]
            first = text.split(",")[0].encode("utf-8").lstrip(b" \t\n\v\f\r")
            length = _strtod(first)
            if not -(2.0**63) < length < 2.0**63:
                raise InvalidParameterError(
                    "the length of -m relstring.<length> is read with atof and "
                    "converted to long (m_relstring.c, te_calc_relstring: "
                    "len = MIN((long) params[0], res_rels.num_ret)), which C "
                    "leaves undefined for a value a long cannot hold; got "
                    f"{value!r}."
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
