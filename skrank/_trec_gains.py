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
from ._validation import MAX_GAIN_GRADE, InvalidParameterError

__all__ = [
    "TREC_NAN",
    "TrecGainTable",
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

    @classmethod
    def read(cls, text: str, base: str, original: str, read_number) -> TrecGainTable:
        """The pairs of ``text`` (``"2=3.9,1=3.5"``) as trec_eval reads them.

        A pair's name that is not an integer (an optional sign, then digits)
        is dropped, as gain_init.c's ``valid_int`` drops it; a negative grade
        (trec_eval's unjudged documents) or a grade above
        :data:`~skrank._validation.MAX_GAIN_GRADE`, and a gain that
        ``read_number`` refuses, are errors naming ``original``.
        """
        from .names.grammar import _read_grade
        from .names.spec import quote_text

        pairs = []
        for item in text.split(","):
            name, eq, value_text = item.partition("=")
            value, rule = read_number(value_text) if eq else (None, "after =")
            if rule is not None:
                raise InvalidParameterError(
                    f"trec_eval's {base} takes grade=gain pairs after the dot, "
                    f"a gain {rule}; got {quote_text(item)} in "
                    f"{quote_text(original)}."
                )
            digits = name[1:] if name[:1] in "+-" else name
            if not digits or not digits.isascii() or not digits.isdigit():
                continue  # not an integer: trec_eval drops the pair
            if name.startswith("-") and digits.strip("0"):
                raise InvalidParameterError(
                    f"The gain table in metric name {quote_text(original)} gives "
                    f"a gain for grade {quote_text(name)}; skrank reads the gains "
                    "of the grades 0 and above (a negative grade is an unjudged "
                    "document's in trec_eval). Give gains for grades 0 .. "
                    f"{MAX_GAIN_GRADE}."
                )
            grade = _read_grade(digits, original)
            pairs.append((grade, value))
        return cls(text, pairs)


def _compare(a, b) -> int:
    """gain_init.c, ``comp_rel_gain``: the difference of the gains, cast to
    ``int`` (toward zero)."""
    return math.trunc(a[1] - b[1])


def merge_sort(items: list, compare=_compare) -> list:
    """``items`` sorted as glibc's ``qsort`` (msort.c, ``msort_with_tmp``)
    sorts them: a top-down merge sort whose first half holds ``n // 2``
    items, taking the left item while ``compare(left, right) <= 0``."""
    n = len(items)
    if n <= 1:
        return list(items)
    left = merge_sort(items[: n // 2], compare)
    right = merge_sort(items[n // 2 :], compare)
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
    for grade in range(top + 1):
        first = next((e for e in entries if e[0] == grade), None)
        if first is None:
            entries.append([grade, float(grade), True])
        else:
            first[2] = True
    return [tuple(e) for e in merge_sort(entries)]


def _judged_grades(r: Ranking):
    """Per query, the number of judged items of each grade ``0 .. G-1``,
    shape (m, G), and the largest judged grade (-1 without judged items)."""
    y, valid, judged = r._pool()
    keep = y >= 0
    if valid is not None:
        keep &= valid
    if judged is not None:
        keep &= judged
    grades = np.where(keep, y, 0.0)
    fractional = grades != np.floor(grades)
    if fractional.any():
        raise InvalidParameterError(
            "trec_eval's gain table reads integer grades; the judgments hold "
            f"the grade {grades[fractional][0]:g}, which is not an integer."
        )
    if grades.size and grades.max() > MAX_GAIN_GRADE:
        raise InvalidParameterError(
            f"trec_eval's gain table reads the grades 0 .. {MAX_GAIN_GRADE} (one "
            f"entry per grade); the judgments hold the grade {grades.max():g}. "
            "Rescale the grades of the judgments."
        )
    grades = grades.astype(np.intp)
    top = np.where(keep, grades, -1).max(axis=1, initial=-1)
    width = int(top.max(initial=-1)) + 1
    rows = np.broadcast_to(np.arange(r.m)[:, None], grades.shape)
    counts = np.bincount(
        (rows * max(width, 1) + grades)[keep], minlength=r.m * max(width, 1)
    ).reshape(r.m, max(width, 1))
    return counts, top


def _groups(r: Ranking, table: TrecGainTable):
    """``(counts, top, [(top value, rows, sorted table), ...])``: the queries
    grouped by their largest judged grade, each group's table sorted once."""
    key = ("trec_gain_groups", table.pairs)
    if key not in r._cache:
        counts, top = _judged_grades(r)
        values, inverse = np.unique(top, return_inverse=True)
        groups = [
            (int(t), np.flatnonzero(inverse == i), sorted_table(table, int(t)))
            for i, t in enumerate(values)  # the distinct top grades, not queries
        ]
        r._cache[key] = (counts, top, groups)
    return r._cache[key]


def position_gains(r: Ranking, table: TrecGainTable) -> np.ndarray:
    """Gains by position, shape (m, W): a judged document's grade's gain in
    its query's sorted table (the first entry of its grade; a grade not
    listed gains its grade), 0 for unjudged documents and padding."""
    key = ("trec_position_gains", table.pairs)
    if key in r._cache:
        return r._cache[key]
    _, _, groups = _groups(r, table)
    listed = max((g for g, _ in table.pairs), default=-1) + 1
    lut = np.tile(np.arange(listed, dtype=np.float64), (len(groups), 1))
    group_of = np.zeros(r.m, dtype=np.intp)
    for i, (_, rows, entries) in enumerate(groups):  # groups, not queries
        group_of[rows] = i
        for grade, gain, _ in reversed(entries):  # the first entry wins
            if grade < listed:
                lut[i, grade] = gain
    mask = r._mask(np.ones(r.y.shape, dtype=bool)) & (r.y >= 0)
    y = np.where(mask, r.y, 0.0)
    if listed:
        grades = y.astype(np.intp)
        looked = lut[group_of[:, None], np.minimum(grades, listed - 1)]
        y = np.where(mask & (grades < listed), looked, y)
    out = y
    r._cache[key] = out
    return out


def ideal_gains(r: Ranking, table: TrecGainTable) -> np.ndarray:
    """Each query's ideal list, shape (m, P): the gains of trec_eval's walk
    down its sorted table (its positive gains, in the walk's order), zeros
    after them."""
    key = ("trec_ideal_gains", table.pairs)
    if key in r._cache:
        return r._cache[key]
    counts, _, groups = _groups(r, table)
    parts = []
    for _, rows, entries in groups:  # groups, not queries
        walk = entries[::-1]
        gains = np.array([e[1] for e in walk], dtype=np.float64)
        grade = np.array([e[0] for e in walk], dtype=np.intp)
        counted = np.array([e[2] for e in walk], dtype=bool)
        n = np.zeros((rows.shape[0], len(walk)), dtype=np.intp)
        cols = np.flatnonzero(counted)
        n[:, cols] = counts[rows][:, grade[cols]]
        # the walk stops at the first entry with items and a gain <= 0, and
        # at once when the last entry's gain is <= 0
        stop = np.cumsum((n > 0) & (gains <= 0.0)[None, :], axis=1) > 0
        if not walk or gains[0] <= 0.0:
            stop[:] = True
        n[stop] = 0
        parts.append((rows, gains, n))
    size = max((int(n.sum(axis=1).max(initial=0)) for _, _, n in parts), default=0)
    out = np.zeros((r.m, size))
    for rows, gains, n in parts:
        flat = n.ravel()
        values = np.repeat(np.tile(gains, rows.shape[0]), flat)
        per_row = n.sum(axis=1)
        row_of = np.repeat(rows, per_row)
        ends = np.cumsum(per_row)
        pos = np.arange(values.shape[0]) - np.repeat(ends - per_row, per_row)
        out[row_of, pos] = values
    r._cache[key] = out
    return out


def dcg(r: Ranking, k, table: TrecGainTable) -> np.ndarray:
    """Expected DCG@k (log2 discount) of the documents' gains: each tie group
    adds its mean gain times the discounts of its ranks within ``k`` (None,
    an int, or one per row)."""
    cum = np.zeros(r.width + 1)
    np.cumsum(discount(r.width), out=cum[1:])
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
    clear)."""
    if not isinstance(params.get("gain"), TrecGainTable):
        return np.zeros(np.shape(values), dtype=bool)
    values = np.asarray(values)
    return (np.isnan(values) & np.signbit(values)) | (values == np.inf)
