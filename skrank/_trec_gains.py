"""trec_eval's gain tables, read and sorted as trec_eval 10.0 does.

``trec_eval -m ndcg.2=3.9,1=3.5`` gives grade 2 the gain 3.9 and grade 1 the
gain 3.5. trec_eval builds one table per query (gain_init.c,
``setup_gains``): the ``grade=gain`` pairs in the order written (a name that
is not an integer is dropped, a repeated grade kept as a second entry), then
every grade ``0 .. top`` not listed, ``top`` the query's largest judged
grade, gaining its own grade; each grade's number of judged items goes to
its first entry. The table is sorted by ``qsort`` with ``comp_rel_gain``,
which returns the difference of two gains cast to ``int``: gains less than
1 apart compare equal. glibc's ``qsort`` is a stable top-down merge sort, so
such gains keep the order written. The ideal list (m_ndcg.c,
``te_calc_ndcg``, and the same walk in m_ndcg_rel.c, m_Rndcg.c and m_G.c)
walks the sorted table from its end, ``num_at_level`` items at each entry's
gain, skipping entries without items and stopping at the first gain <= 0
(at once if the last entry's gain is <= 0). A retrieved document gains the
gain of the first entry of its grade in the sorted table (``get_gain``), an
unjudged one 0.

:class:`TrecGainTable` carries the pairs as written, as the ``gain`` of
``ndcg``, ``ndcg_rel``, ``Rndcg`` and ``G`` under the conventions that read
names as trec_eval does; the functions here give the gains of the retrieved
documents and the ideal lists of a block of queries. The queries are grouped
by their largest judged grade: the table is built and sorted once per
group (a few entries), and everything else is vectorised across queries.
"""

from __future__ import annotations

import math

import numpy as np

from ._engine import Ranking, discount
from ._engine.ranking import cumulative_discount
from ._validation import InvalidParameterError

__all__ = [
    "MAX_TREC_GRADE",
    "TREC_NAN",
    "TrecGainTable",
    "borrowed_grades",
    "ideal_gains",
    "position_gains",
    "qsort_ranks",
    "dcg",
    "ndcg",
    "ndcg_rel_inf",
    "r_ndcg",
    "trec_nan",
]

#: trec_eval's ``0.0 / 0.0`` on x86-64: the default NaN of SSE division,
#: whose sign bit is set (glibc's ``printf`` prints it ``-nan``).
TREC_NAN = float(np.copysign(np.nan, -1.0))


#: skrank's work limit on a query's trec_eval gain table: its largest judged
#: grade. trec_eval allocates an entry for every grade from 0 to it
#: (form_res_rels.c, ``te_form_res_rels``: ``rel_levels`` of ``max_rel + 1``
#: counts; gain_init.c, ``setup_gains``: ``num_rel_levels + num_pairs``
#: entries), and skrank builds and sorts the same table.
MAX_TREC_GRADE = 2**16 - 1

# gain_init.c, comp_rel_gain returns a difference of gains as an int: beyond
# the int range the conversion is undefined (C11 6.3.1.4)
_INT_RANGE = 2.0**31


class TrecGainTable(str):
    """trec_eval's ``grade=gain`` pairs, as written after a measure's dot.

    The string is the text as written (``"2=3.9,1=3.5"``); :attr:`pairs`
    holds the pairs kept, ``(grade, gain)`` in the order written. Made by
    :meth:`read`.
    """

    __slots__ = ("pairs",)

    def __new__(cls, text: str, pairs):
        self = super().__new__(cls, text)
        self.pairs = tuple((int(g), float(v)) for g, v in pairs)
        return self

    def __reduce__(self):
        return (TrecGainTable, (str(self), self.pairs))

    @property
    def gains_unjudged(self) -> bool:
        """Whether the table gives a retrieved document outside the
        judgments (grade -1, form_res_rels.c's ``RELVALUE_NONPOOL``) a gain
        other than 0, as it gives trec_eval's placeholder document of a
        query the run misses (trec_eval.c, ``main``)."""
        return any(g == -1 and v != 0 for g, v in self.pairs)

    @property
    def gains_below_zero(self) -> bool:
        """Whether the table gives grade -1 or -2 (a document outside the
        judgments, one judged below 0) a gain other than 0."""
        return any(g in (-1, -2) and v != 0 for g, v in self.pairs)

    @classmethod
    def read(cls, text: str, base: str, original: str) -> TrecGainTable:
        """The pairs of ``text`` (``"2=3.9,1=3.5"``) as trec_eval reads them.

        meas_init.c, ``get_param_pairs``, reads each gain with C's ``atof``
        (``3abc`` is 3, ``abc`` 0, ``0x10`` 16); gain_init.c, ``setup_gains``,
        drops a pair whose name is not an integer (an optional sign, then
        digits: ``valid_int``) and reads the others' names with ``atol``. A
        negative grade names trec_eval's codes of a retrieved document
        outside the judgments (-1, ``RELVALUE_NONPOOL``) and of one judged
        below 0 (-2, ``RELVALUE_UNJUDGED``); other negative grades match no
        document. A pair without ``=`` (trec_eval: "malformed pair
        parameters") and a gain that is not finite (``inf``, ``nan``:
        ``comp_rel_gain``'s conversion of the difference of two gains to
        ``int`` is undefined in C) are errors naming ``original``.
        """
        from .names.spec import quote_text
        from .trec._io import _strtod

        pairs = []
        for item in text.split(","):
            name, eq, value_text = item.partition("=")
            value = _strtod(value_text.encode("utf-8").lstrip(b" \t\n\v\f\r"))
            if not eq or not math.isfinite(value):
                raise InvalidParameterError(
                    f"trec_eval's {base} takes grade=gain pairs after the dot, "
                    + (
                        "each with an '='"
                        if not eq
                        else "a gain that atof reads as a finite number "
                        "(gain_init.c, comp_rel_gain: the difference of two "
                        "gains converted to int, undefined for inf and nan)"
                    )
                    + f"; got {quote_text(item)} in {quote_text(original)}."
                )
            digits = name[1:] if name[:1] in "+-" else name
            if not digits or not digits.isascii() or not digits.isdigit():
                continue  # not an integer: trec_eval drops the pair
            grade = int(name)  # atol saturates at the range of a long
            pairs.append((min(max(grade, -(2**63)), 2**63 - 1), value))
        return cls(text, pairs)


def borrowed_grades(q, y, n_q, qid_of):
    """The grades trec_eval counts for its queries judged only below 0:
    ``(queries, grades)``, the judged grades (>= 0) of the query evaluated
    before each such query, or None when there is none.

    ``q`` (the query of each judgment, 0 .. ``n_q`` - 1 in trec_eval's
    order of evaluation, the byte order of the ids; -1 for a query not
    evaluated) and ``y`` (its grade) are the judgments; ``qid_of(i)`` names
    query ``i``.
    form_res_rels.c, ``te_form_res_rels``, clears and counts ``max_rel + 1``
    entries of its static ``rel_levels``, ``max_rel`` the query's largest
    judged grade, and sets ``num_rel_levels`` only in ``for (i = 0; i <=
    max_rel; i++)``: a query judged only at -1 (``max_rel`` = -1) keeps the
    counts and ``num_rel_levels`` of the last query before it judged at 0 or
    above, from which gain_init.c, ``setup_gains``, builds its gain table.
    trec_eval fails where no such query comes before (``rel_levels`` was
    never allocated: ``te_chk_and_malloc`` returns NULL, and trec_eval stops
    with "Can't calculate measure") and crashes for a query judged only
    below -1 (``memset`` of ``(max_rel + 1) * sizeof(long)`` bytes, a
    negative size): both are errors.
    """
    picked = q >= 0
    q, y = q[picked], y[picked]
    judged = np.zeros(n_q, dtype=bool)
    judged[q] = True
    counted = np.zeros(n_q, dtype=bool)
    counted[q[y >= 0]] = True
    taking = np.flatnonzero(judged & ~counted)
    if not taking.shape[0]:
        return None
    # the last query before each one that counts grades (itself if it does)
    last = np.maximum.accumulate(np.where(counted, np.arange(n_q), -1))
    donor = last[taking]
    top = np.full(n_q, -np.inf)
    np.maximum.at(top, q, y)
    first = taking[donor < 0]
    crash = taking[(donor >= 0) & (top[taking] < -1)]
    if first.shape[0] or crash.shape[0]:
        at = int(first[0] if first.shape[0] else crash[0])
        qid = qid_of(at)
        raise InvalidParameterError(
            f"Query {qid!r} has judgments below 0 only, and the gain table "
            "gives grade -1 or -2 a gain: trec_eval "
            + (
                'stops there with "Can\'t calculate measure" (form_res_rels.c, '
                "te_form_res_rels: no query judged at 0 or above comes before "
                "it, so rel_levels was never allocated and te_chk_and_malloc "
                "returns NULL)."
                if first.shape[0]
                else "crashes there (form_res_rels.c, te_form_res_rels: its "
                f"largest judged grade is {top[at]:g}, and the memset of "
                "(max_rel + 1) * sizeof(long) bytes of rel_levels is given a "
                "negative size)."
            )
        )
    keep = y >= 0
    order = np.argsort(q[keep], kind="stable")
    dq, dy = q[keep][order], y[keep][order]
    size = np.bincount(dq, minlength=n_q)
    start = np.cumsum(size) - size
    n = size[donor]
    offsets = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    return np.repeat(taking, n), dy[np.repeat(start[donor], n) + offsets]


def _compare(a, b) -> int:
    """gain_init.c, ``comp_rel_gain``: the difference of the gains, cast to
    ``int`` (toward zero)."""
    return math.trunc(a[1] - b[1])


def merge_sort(items: list, compare=_compare, ordered=None) -> list:
    """``items`` sorted as glibc's ``qsort`` (msort.c, ``msort_with_tmp``)
    sorts them: a top-down merge sort whose first half holds ``n // 2``
    items, taking the left item while ``compare(left, right) <= 0``.

    ``ordered``: an index from which the items are known to be in order,
    each comparing below the next; the sort leaves such a run as it is, and
    is not run on it."""
    n = len(items)
    if n <= 1 or (ordered is not None and ordered <= 0):
        return list(items)
    half = n // 2
    left = merge_sort(items[:half], compare, ordered)
    right = merge_sort(
        items[half:], compare, None if ordered is None else ordered - half
    )
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def qsort_ranks(scores: list, ids: list) -> np.ndarray:
    """The rank (0 first) trec_eval gives each of one query's documents,
    ``scores`` and ``ids`` (bytes) one per document, as glibc's ``qsort``
    orders them.

    get_trec_results.c, ``te_get_trec_results``, sorts the run's lines by
    query and document id (``comp_lines_qid_docno``, a total order), so a
    query's documents reach form_res_rels.c's ``qsort`` in byte order of
    their ids; ``comp_sim_docno`` then puts the higher score first and, when
    neither score is above the other, the larger id first. With a NaN score
    that is not an order (NaN is neither above nor below any score), and the
    ranks are whatever :func:`merge_sort`'s sequence of comparisons gives.
    """

    def compare(a, b):
        if scores[a] > scores[b]:
            return -1
        if scores[a] < scores[b]:
            return 1
        return (ids[b] > ids[a]) - (ids[b] < ids[a])

    order = merge_sort(sorted(range(len(ids)), key=ids.__getitem__), compare)
    ranks = np.empty(len(ids), dtype=np.intp)
    ranks[order] = np.arange(len(ids))
    return ranks


def sorted_table(table: TrecGainTable, top: int) -> list:
    """The table of a query whose largest judged grade is ``top`` (-1: no
    judged item), sorted: ``(grade, gain, counted)`` entries, ``counted``
    whether the entry holds its grade's number of judged items."""
    entries = [[g, v, False] for g, v in table.pairs]
    listed = set()
    for e in entries:  # the first entry of a grade 0 .. top holds its count
        if 0 <= e[0] <= top and e[0] not in listed:
            listed.add(e[0])
            e[2] = True
    tail = len(entries)
    # the grades not listed gain their grade: ascending, in order already
    entries.extend([g, float(g), True] for g in range(top + 1) if g not in listed)
    gains = [e[1] for e in entries]
    if gains and max(gains) - min(gains) >= _INT_RANGE:
        raise InvalidParameterError(
            "trec_eval's gain table sorts its entries by the difference of two "
            "gains converted to int (gain_init.c, comp_rel_gain), undefined in "
            f"C beyond +-{_INT_RANGE:.0f}; the table {table!r} with the grades "
            f"0 .. {top} holds gains from {min(gains):g} to {max(gains):g}."
        )
    return [tuple(e) for e in merge_sort(entries, ordered=tail)]


def _judged_grades(r: Ranking):
    """The judged items of every query as ``(row, grade, count)`` triples
    (the number of judged items of each grade of each query; a grade >= 0)
    and each query's largest judged grade (-1 without judged items)."""
    y, valid, judged = r._pool()
    keep = y >= 0
    if valid is not None:
        keep &= valid
    if judged is not None:
        keep &= judged
    rows, cols = np.nonzero(keep)
    grades = y[rows, cols]
    fractional = grades != np.floor(grades)
    if fractional.any():
        raise InvalidParameterError(
            "trec_eval's gain table reads integer grades; the judgments hold "
            f"the grade {grades[fractional][0]:g}, which is not an integer."
        )
    if grades.size and grades.max() > MAX_TREC_GRADE:
        raise InvalidParameterError(
            f"trec_eval's gain table has an entry for every grade from 0 to the "
            f"largest judged one (gain_init.c, setup_gains), which skrank builds "
            f"and sorts as trec_eval does up to the grade {MAX_TREC_GRADE}; the "
            f"judgments hold the grade {int(grades.max())}. Rescale the grades."
        )
    grades = grades.astype(np.int64)
    top = np.full(r.m, -1, dtype=np.int64)
    np.maximum.at(top, rows, grades)
    width = int(top.max(initial=-1)) + 1
    keys, counts = np.unique(
        rows * np.int64(max(width, 1)) + grades, return_counts=True
    )
    return (keys // max(width, 1), keys % max(width, 1), counts), top


def _groups(r: Ranking, table: TrecGainTable):
    """``(triples, top, groups)``: the judged triples and largest grades of
    :func:`_judged_grades`, and the queries grouped by their largest judged
    grade, each group's table sorted once, as ``(rows, walk gains, walk
    position of each grade's counted entry, grades, gains)``: the walk runs
    down the sorted table from its end; ``grades`` and ``gains`` are each
    grade's first entry, the grades ascending."""
    key = ("trec_gain_groups", table.pairs)
    if key not in r._cache:
        triples, top = _judged_grades(r)
        # a query judged only below 0 (top -1) has a table without counts:
        # evaluate_run gives it the grades trec_eval reads there, those of
        # the query it evaluated before (see borrowed_grades)
        values, inverse = np.unique(top, return_inverse=True)
        groups = []
        for i, t in enumerate(values.tolist()):  # distinct top grades
            entries = sorted_table(table, t)
            walk = entries[::-1]
            gains = np.array([e[1] for e in walk], dtype=np.float64)
            grade = np.array([e[0] for e in walk], dtype=np.int64)
            counted = np.array([e[2] for e in walk], dtype=bool)
            position = np.zeros(t + 1, dtype=np.intp)
            position[grade[counted]] = np.flatnonzero(counted)
            # the first entry of each grade in the sorted table: the last in
            # the walk
            first_grades, at = np.unique(grade[::-1], return_index=True)
            first_gains = gains[::-1][at]
            rows = np.flatnonzero(inverse == i)
            groups.append((rows, gains, position, first_grades, first_gains))
        r._cache[key] = (triples, top, groups)
    return r._cache[key]


def position_gains(r: Ranking, table: TrecGainTable) -> np.ndarray:
    """Gains by position, shape (m, W): the gain of the first entry of the
    document's code in its query's sorted table (m_ndcg.c and the others
    call gain_init.c's ``get_gain`` with the code of form_res_rels.c: the
    grade of a judged document, -1 for one outside the judgments, -2 for
    one judged below 0), 0 for a code without an entry and for padding."""
    key = ("trec_position_gains", table.pairs)
    if key in r._cache:
        return r._cache[key]
    _, _, groups = _groups(r, table)
    items = np.ones(r.y.shape, dtype=bool)
    valid = r._valid()
    if valid is not None:
        items &= valid
    judged = items.copy() if r.judged_sorted is None else items & r.judged_sorted
    judged &= r.y >= 0
    unassessed = r.unassessed_sorted
    outside = -1.0 if unassessed is None else np.where(unassessed, -2.0, -1.0)
    codes = np.where(judged, r.y, outside).astype(np.int64)
    out = np.zeros(r.y.shape)
    for rows, _, _, grades, gains in groups:  # groups, not queries
        sub = codes[rows]
        at = np.minimum(np.searchsorted(grades, sub), max(grades.shape[0] - 1, 0))
        if grades.shape[0]:
            found = (grades[at] == sub) & items[rows]
            out[rows] = np.where(found, gains[at], 0.0)
    r._cache[key] = out
    return out


def ideal_gains(r: Ranking, table: TrecGainTable) -> np.ndarray:
    """Each query's ideal list, shape (m, P): the gains of trec_eval's walk
    down its sorted table (its positive gains, in the walk's order), zeros
    after them. The walk takes each entry's judged items at its gain,
    skips entries without items and stops at the first entry with items
    whose gain is not above 0, and at once when the last entry's gain is
    not above 0 (m_ndcg.c, ``te_calc_ndcg``: ``ideal_gain > 0.0``)."""
    key = ("trec_ideal_gains", table.pairs)
    if key in r._cache:
        return r._cache[key]
    (t_rows, t_grades, t_counts), _, groups = _groups(r, table)
    group_of = np.zeros(r.m, dtype=np.intp)
    for i, (rows, *_) in enumerate(groups):
        group_of[rows] = i
    parts = []
    for i, (rows, gains, position, _, _) in enumerate(groups):  # groups
        pick = group_of[t_rows] == i
        q, n = t_rows[pick], t_counts[pick]
        p = position[t_grades[pick]]
        gain = gains[p]
        stop = np.full(r.m, np.iinfo(np.intp).max)
        bad = ~(gain > 0.0)
        np.minimum.at(stop, q[bad], p[bad])
        if not gains.shape[0] or not gains[0] > 0.0:
            stop[rows] = -1
        keep = p < stop[q]
        parts.append((q[keep], p[keep], gain[keep], n[keep]))
    q, p, gain, n = (np.concatenate(a) for a in zip(*parts, strict=True))
    order = np.lexsort((p, q))
    q, gain, n = q[order], gain[order], n[order]
    per_row = np.bincount(q, weights=n, minlength=r.m).astype(np.intp)
    out = np.zeros((r.m, int(per_row.max(initial=0))))
    values = np.repeat(gain, n)
    row_of = np.repeat(q, n)
    ends = np.cumsum(per_row)
    pos = np.arange(values.shape[0]) - (ends - per_row)[row_of]
    out[row_of, pos] = values
    r._cache[key] = out
    return out


def dcg(r: Ranking, k, table: TrecGainTable) -> np.ndarray:
    """Expected DCG@k (log2 discount) of the documents' gains: each tie group
    adds its mean gain times the discounts of its ranks within ``k`` (None,
    an int, or one per row)."""
    cum = cumulative_discount(r.width)
    mean = r.group_sum(position_gains(r, table)) / r.size
    T = r.start
    return r.row_sum(mean * (cum[T + r.in_cutoff(k)] - cum[T]))


def _ideal_dcg_at(r: Ranking, table: TrecGainTable) -> np.ndarray:
    """IDCG over the first c ranks of the ideal list, c = 0 .. P, shape
    (m, P + 1)."""
    ideal = ideal_gains(r, table)
    out = np.zeros((r.m, ideal.shape[1] + 1))
    np.cumsum(ideal * discount(ideal.shape[1]), axis=1, out=out[:, 1:])
    return out


def ndcg(r: Ranking, k, table: TrecGainTable):
    """``(values, undefined)`` of nDCG@k with trec_eval's table (m_ndcg.c,
    ``te_calc_ndcg``): DCG@k over the IDCG of the first ``k`` ranks of the
    ideal list, undefined when that is 0."""
    idcg_at = _ideal_dcg_at(r, table)
    P = idcg_at.shape[1] - 1
    idcg = idcg_at[:, P if k is None else min(int(k), P)]
    undefined = idcg == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(
            undefined, 0.0, dcg(r, k, table) / np.where(undefined, 1, idcg)
        )
    return value, undefined


def r_ndcg(r: Ranking, relevance_level, table: TrecGainTable):
    """``(values, undefined)`` of ``Rndcg`` with trec_eval's table
    (m_Rndcg.c, ``te_calc_Rndcg``): the mean of DCG@c / IDCG@c over the
    ranks c >= 1 of the ideal list where its gain changes (the last at its
    end, P), in increasing c, plus the nDCG at the list's end n when
    P <= n - 2; undefined without relevant items. A query with relevant
    items whose walk gives no ideal list (P = 0) has no point: trec_eval
    divides 0 by 0, and its value is :data:`TREC_NAN`."""
    n_rel = r.n_relevant(relevance_level)
    idcg_at = _ideal_dcg_at(r, table)
    ideal = ideal_gains(r, table)
    P = np.count_nonzero(ideal > 0, axis=1)
    padded = np.zeros((r.m, ideal.shape[1] + 1))
    padded[:, :-1] = ideal
    change = np.zeros(padded.shape, dtype=bool)
    change[:, 1:] = padded[:, 1:] != padded[:, :-1]  # change[c]: at rank c
    rows, cs = np.nonzero(change)
    nth = np.arange(rows.shape[0]) - np.searchsorted(rows, rows)
    total = np.zeros(r.m)
    points = np.zeros(r.m)
    for j in range(int(nth.max(initial=-1)) + 1):  # points of a row, not queries
        pick = nth == j
        c = np.zeros(r.m, dtype=np.intp)
        c[rows[pick]] = cs[pick]
        best = idcg_at[np.arange(r.m), c]
        ok = (c > 0) & (best > 0)
        total += np.where(ok, dcg(r, c, table) / np.where(ok, best, 1.0), 0.0)
        points += ok
    end = (P <= r.n_items - 2) & (P > 0)
    best = idcg_at[:, -1]
    total += np.where(end, dcg(r, None, table) / np.where(end, best, 1.0), 0.0)
    points += end
    undefined = n_rel == 0
    # relevant items but no point: trec_eval divides 0 by 0 (m_Rndcg.c,
    # ``sum / num_changed_ideal_gain``), which happens when the walk gives no
    # ideal list (P = 0)
    no_points = ~undefined & (points == 0)
    value = total / np.where(undefined | no_points, 1, points)
    value[undefined] = 0.0
    value[no_points] = TREC_NAN
    return value, undefined


def ndcg_rel_inf(r: Ranking, table: TrecGainTable) -> np.ndarray:
    """Where ``ndcg_rel`` with trec_eval's table is ``inf``, shape (m,).

    m_ndcg_rel.c, ``te_calc_ndcg_rel``: a query whose walk gives no ideal
    list (P = 0) keeps an ideal DCG of 0, and each retrieved document of
    positive gain adds ``results_dcg / ideal_dcg`` (the DCG down to it over
    0: ``inf`` when positive, ``-inf`` when negative, NaN when 0), then the
    end adds ``(num_rel - num_rel_ret) * results_dcg / ideal_dcg``, ``-R``
    times the DCG of the whole list over 0 (R >= 1 documents of positive
    gain retrieved; NaN when R = 0). The value is ``sum / num_rel`` only when
    ``sum > 0.0``, false for NaN and ``-inf``: so it is ``inf / 0 = inf``
    exactly when R >= 1, the DCG down to every document of positive gain is
    above 0 and the DCG of the whole list is below 0, and 0 otherwise (never
    ``-inf`` nor NaN). The DCGs are summed as trec_eval sums them, gain over
    ``log2(rank + 1)`` in rank order. A query with tied scores is left
    out (its value would depend on the order of the ties; the conventions
    that read trec_eval's tables break every tie)."""
    g = position_gains(r, table)
    P = np.count_nonzero(ideal_gains(r, table) > 0, axis=1)
    width = g.shape[1]
    prefix = np.cumsum(g / np.log2(np.arange(width) + 2.0), axis=1)
    positive = g > 0
    end = prefix[:, -1] if width else np.zeros(r.m)
    untied = r.row_sum(r.size > 1) == 0
    return (
        (P == 0)
        & positive.any(axis=1)
        & ~(positive & ~(prefix > 0)).any(axis=1)
        & (end < 0)
        & untied
    )


def trec_nan(params, values) -> np.ndarray:
    """Where ``values`` (a metric's per-query values, computed with
    ``params``) hold trec_eval's own non-finite values: a metric read with
    trec_eval's gain table divides as trec_eval does, and its ``0.0 / 0.0``
    (:data:`TREC_NAN`, sign bit set; see :func:`r_ndcg`) and its division
    of a positive sum by 0 (``inf``; see :func:`ndcg_rel_inf`) are the
    values trec_eval prints, neither an overflow to report nor an undefined
    query (whose NaN, where one stands for it, is ``np.nan``, sign bit
    clear). Likewise every non-finite value of ``rbp`` and ``rbp_resid``
    at a ``p`` outside (0, 1), which only trec_eval's reading of
    ``rbp.p=...`` gives (see :func:`skrank.names.trec_eval._trec_atof_pairs`):
    trec_eval's running product ``cur_p * p`` overflows, and its
    ``inf``, ``-inf`` and NaN are what it prints (m_rbp.c, ``te_calc_rbp``;
    m_rbp_resid.c, ``te_calc_rbp_resid``)."""
    values = np.asarray(values)
    p = params.get("p")
    if isinstance(p, float) and not 0.0 < p < 1.0:
        return ~np.isfinite(values)
    if not isinstance(params.get("gain"), TrecGainTable):
        return np.zeros(np.shape(values), dtype=bool)
    return (np.isnan(values) & np.signbit(values)) | (values == np.inf)
