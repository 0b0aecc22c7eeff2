"""Qrels and runs as tables: query codes, document ids and values, with their
conversions to dicts and DataFrames."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from .._engine import stable_group_order
from .._frames import to_backend
from .._validation import InvalidParameterError
from . import _keys
from ._ids import _decode, _fixed_ok
from ._io import (
    _LOW40,
    _MAX_CODED,
    _STEP,
    _in_order,
    _pair_keys,
    _show,
)
from ._writers import _QrelsWriter, _RunWriter

# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------


class _Lines:
    """Where each row came from, for error messages.

    ``kind`` is ``"file"`` (lines added chunk by chunk), ``"frame"`` (row
    positions) or ``"dict"`` (``keys`` holds the query and document of each
    row).
    """

    def __init__(self, label, kind="file", keys=None):
        self.label = label
        self.kind = kind
        self.keys = keys
        self._row_starts = []
        self._parts = []  # (line_start, lines or None)

    def add(self, row_start, line_start, lines):
        self._row_starts.append(row_start)
        self._parts.append((line_start, lines))

    def where(self, row) -> str:
        row = int(row)
        if self.kind == "file":
            i = bisect_right(self._row_starts, row) - 1
            line_start, lines = self._parts[i]
            r = row - self._row_starts[i]
            line = line_start + r if lines is None else int(lines[r])
            return f"line {line} of {self.label}"
        if self.kind == "frame":
            return f"row {row} of {self.label}"
        if self.keys is not None:
            q, d = self.keys[0][row], self.keys[1][row]
            return f"query {_show(q)}, document {_show(d)} of {self.label}"
        return self.label


def _id_array(values: np.ndarray) -> np.ndarray:
    """Sorted unique ids (``S`` or object array of bytes) in a compact form.

    An ``S`` array as wide as the longest id when that is cheap, else an
    object array of bytes (both sort and compare byte-wise alike, ids having
    no NUL byte).
    """
    if values.dtype.kind == "S":
        if values.shape[0] == 0:
            return values.astype("S1")
        lengths = np.char.str_len(values)
        width = max(int(lengths.max()), 1)
        if _fixed_ok(values.shape[0], width, int(lengths.sum())):
            return values.astype(f"S{width}")
        return values.astype(object)
    items = values.tolist()
    lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    width = max(int(lengths.max(initial=1)), 1)
    if _fixed_ok(len(items), width, int(lengths.sum())):
        return np.array(items, dtype=f"S{width}")
    return values


def _same_kind(*arrays):
    """Id arrays made comparable: all object arrays if one of them is."""
    if all(a.dtype.kind == "S" for a in arrays):
        return arrays
    return tuple(a if a.dtype.kind == "O" else a.astype(object) for a in arrays)


def _natural_order(qids: np.ndarray) -> np.ndarray:
    """Order of query ids: numeric when all are plain integers, else byte-wise."""
    items = qids.tolist()
    if items and all(t.isdigit() and t.isascii() for t in items):
        # numeric order without int() (no limit on the number of digits):
        # fewer significant digits first, then the digits, then the bytes
        digits = np.empty(len(items), dtype=object)
        digits[:] = [t.lstrip(b"0") for t in items]
        size = np.fromiter(map(len, digits), dtype=np.int64, count=len(items))
        return np.lexsort((qids, digits, size))  # not a ranking: output order
    return np.argsort(qids, kind="stable")  # not a ranking: output order


class _Table:
    """Rows of (query, document, value): queries coded, documents keyed."""

    _value_name = "value"
    # set by a reader whose rows cannot repeat a (query, document) pair
    _pairs_distinct = False

    def __init__(
        self, qid_values, codes, docno, values, keys, lines, source=None, h40=None
    ):
        self._qid_values = qid_values  # sorted unique query ids (bytes)
        self._codes = codes  # query code of each row
        self._docno = docno  # document id of each row (_Ids)
        self._values = values
        self._keys = keys  # (query, document) key of each row
        self._h40 = h40  # document hashes, kept only when keys mix queries in
        self._lines = lines
        self.source = source

    def __len__(self) -> int:
        return len(self._docno)

    @property
    def n_queries(self) -> int:
        """Number of distinct queries.

        See Also
        --------
        queries : The query ids.
        """
        return int(self._qid_values.shape[0])

    @property
    def queries(self) -> np.ndarray:
        """The distinct query ids (str), in natural order.

        Ids that are not valid UTF-8 keep their other bytes as lone
        surrogates (``errors="surrogateescape"``), so that they stay distinct
        and give the same bytes back when passed in again.

        See Also
        --------
        qid : The query id of each row.
        """
        return _decode(self._qid_values[_natural_order(self._qid_values)])

    @property
    def qid(self) -> np.ndarray:
        """Query id of each row (str; an object array when ids are long).

        See Also
        --------
        queries : The distinct query ids.
        """
        text = _decode(self._qid_values).tolist()
        lengths = np.fromiter(map(len, text), dtype=np.int64, count=len(text))
        width = max(int(lengths.max(initial=1)), 1)
        n = self._codes.shape[0]
        if _fixed_ok(n, width, int(lengths[self._codes].sum())):
            return np.array(text, dtype=f"U{width}")[self._codes]
        # a few long ids: one str object per query, shared by its rows
        out = np.empty(len(text), dtype=object)
        out[:] = text
        return out[self._codes]

    @property
    def docno(self) -> np.ndarray:
        """Document id of each row (str; an object array when ids are long).

        Invalid UTF-8 is decoded as in :attr:`queries`.

        See Also
        --------
        qid : The query id of each row.
        """
        return self._docno.decode()

    def to_frame(self, backend="pandas"):
        """The rows as a DataFrame of the caller's library.

        Parameters
        ----------
        backend : {"pandas", "polars", "pyarrow"}, default="pandas"
            The library of the table (a pandas or polars DataFrame, a
            pyarrow Table); it must be installed.

        Returns
        -------
        frame : pandas.DataFrame, polars.DataFrame or pyarrow.Table
            Columns ``qid``, ``docno`` and the value (``relevance`` or
            ``score``), one row per judgment or retrieved document: the
            columns the readers take back.

        Raises
        ------
        ValueError
            When ``backend`` is not one of the three.
        ImportError
            When that library is not installed.

        See Also
        --------
        to_dict : The rows as a nested dict.

        Examples
        --------
        >>> from skrank.trec import read_run
        >>> read_run({"q1": {"d1": 0.5, "d2": 1.5}}).to_frame()
          qid docno  score
        0  q1    d1    0.5
        1  q1    d2    1.5
        >>> read_run({"q1": {"d1": 0.5}}).to_frame(backend="pyarrow").num_rows
        1
        """
        columns = {"qid": self.qid, "docno": self.docno}
        columns[self._value_name] = self._values
        return to_backend(columns, backend, f"{type(self).__name__}.to_frame")

    def to_dict(self) -> dict:
        """The rows as a nested dict ``{qid: {docno: value}}``.

        Returns
        -------
        data : dict
            One inner dict per query, as pytrec_eval and ranx take them.

        See Also
        --------
        to_frame : The rows as a DataFrame.

        Examples
        --------
        >>> from skrank.trec import read_qrels
        >>> read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}).to_dict()
        {'q1': {'d1': 2, 'd2': 0}, 'q2': {'d3': 1}}
        """
        qids = _decode(self._qid_values).tolist()
        out = {q: {} for q in qids}
        rows = zip(
            self._codes.tolist(),
            self.docno.tolist(),
            self._values.tolist(),
            strict=True,
        )
        for c, d, v in rows:
            out[qids[c]][d] = v
        return out

    def _document_hash(self):
        return self._h40 if self._h40 is not None else self._keys & _LOW40

    # -- derived data, computed once: ids and keys do not change; values may
    # be edited in place (Run.score, Qrels.relevance), so nothing derived
    # from them is kept without the values it was derived from ---------------

    def __getstate__(self):
        # what evaluations computed is not part of the table
        state = self.__dict__.copy()
        state.pop("_derived", None)
        return state

    def _cached(self, name, build):
        cache = self.__dict__.setdefault("_derived", {})
        if name not in cache:
            cache[name] = build()
        return cache[name]

    def _key_index(self) -> _KeyIndex:
        """A sorted index of the table's (query, document) keys (built once)."""

        def build():
            order = _key_sort(self._keys, self._codes, self.n_queries)
            coded = self.n_queries <= _MAX_CODED  # see _pair_keys
            return _KeyIndex(self._keys, order, self.n_queries if coded else None)

        return self._cached("key_index", build)

    def _sorted_ids(self):
        """The document ids in the order of :meth:`_key_index` when they
        are fixed-width, else None (computed once): the join reads them in
        the order of its lookups."""

        def build():
            if self._docno.fixed is None:
                return None
            return self._docno.take(self._key_index().order)

        return self._cached("sorted_ids", build)

    def _grouped(self):
        """The rows grouped by query, input order within a query: ``(rows,
        codes, keys, values)``, ``rows`` None when the table is grouped
        already (the other three are then its own columns), else the row of
        each grouped position and the columns in that order. The order,
        codes and keys are computed once; the values are taken from the
        table's column at each call, so that edits to it are seen."""
        rows, codes, keys = self._grouping()
        values = self._values if rows is None else np.take(self._values, rows)
        return rows, codes, keys, values

    def _grouping(self):
        """``(rows, codes, keys)`` of :meth:`_grouped` (computed once)."""
        return self._cached("grouped", self._group_rows)

    def _group_rows(self):
        codes = self._codes
        if codes.shape[0] < 2 or not (codes[1:] < codes[:-1]).any():
            return None, codes, self._keys
        # not a ranking: rows of a query brought together, in input order
        rows = stable_group_order(codes, self.n_queries)
        counts = _query_counts(codes, self.n_queries)
        grouped = np.repeat(np.arange(self.n_queries, dtype=codes.dtype), counts)
        keys = np.take(self._keys, rows)
        if rows.shape[0] < 2**31:
            rows = rows.astype(np.int32)
        return rows, grouped, keys

    def _cached_of_values(self, name, build):
        """``build()``, which reads the table's values, kept with a copy of
        the values it read: built again once they have been edited."""
        cache = self.__dict__.setdefault("_derived", {})
        kept = cache.get(name)
        if kept is not None and np.array_equal(kept[0], self._values):
            return kept[1]
        values = self._values.copy()
        cache[name] = (values, build())
        return cache[name][1]

    def _prepare(self):
        """What every evaluation reads, computed once when the table is
        read: the qrels' key index, with their ids in its order (a run's
        rows are grouped by query by the check of its duplicates; its ids
        are read where they are, only at the rows the join matches)."""
        if not isinstance(self, Run):
            self._sorted_ids()

    def _subset(self, rows):
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        out._derived = {}
        out._codes = self._codes[rows]
        out._docno = self._docno.take(rows)
        out._values = self._values[rows]
        out._keys = self._keys[rows]
        out._h40 = None if self._h40 is None else self._h40[rows]
        return out

    def _check_duplicates(self):
        """Reject a (query, document) pair given twice (none can be, where
        the reader says so: ``_pairs_distinct``)."""
        if self._pairs_distinct:
            return
        if isinstance(self, Run):
            # a hash set of each query's keys (grouped by query), nothing
            # kept; the queries in slices of about _STEP keys, on threads
            _, codes, keys = self._grouping()
            keys = np.ascontiguousarray(keys, dtype=np.uint64)
            bounds = np.searchsorted(
                codes, np.arange(self.n_queries + 1, dtype=codes.dtype)
            ).astype(np.int64)

            def repeated(span):
                qa, qb = span
                a, b = bounds[qa], bounds[qb]
                return _keys.repeated_keys(keys[a:b], bounds[qa : qb + 1] - a)

            spans = _query_spans(bounds[:-1], keys.shape[0])
            found = np.concatenate(
                [np.zeros(0, dtype=np.uint64), *_in_order(repeated, spans)]
            )
            suspects = np.unique(found) if found.shape[0] else None
        else:
            suspects = _repeated(self._key_index().sorted)
        if suspects is None:
            return
        rows = np.flatnonzero(np.isin(self._keys, suspects))
        # stable: the rows of equal ids stay in file order
        order, labels = self._docno.order(rows, self._codes[rows])
        labels = labels[order]
        rows = rows[order]
        dup = labels[1:] == labels[:-1]
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            a, b = rows[i], rows[i + 1]
            q = str(_decode(self._qid_values[self._codes[a : a + 1]])[0])
            d = str(self._docno.take(slice(a, a + 1)).decode()[0])
            where = ""
            if self._lines.kind != "dict":
                where = f" ({self._lines.where(a)} and {self._lines.where(b)})"
            raise InvalidParameterError(
                f"Document {_show(d)} appears twice for query {_show(q)} in "
                f"{self._kind_name}{where}; each (query, document) pair must "
                "be unique, as trec_eval requires."
            )


def _key_sort(keys, codes, n_queries, grouped=False):
    """The order of ``keys`` ascending (not a ranking: keys sorted for a
    join), as int32 when the rows allow; see :func:`_sort_keys`."""
    return _sort_keys(keys, codes, n_queries, grouped)[0]


def _query_spans(start, n):
    """Slices of whole queries of about ``_STEP`` rows each, for the passes
    that take a slice at a time: ``(first, stop)`` query numbers, ``start``
    the first row of each query in grouped order (``n`` rows in all)."""
    cuts = np.searchsorted(start, np.arange(_STEP, n, _STEP))
    edges = np.unique(np.concatenate([[0], cuts, [start.shape[0]]])).tolist()
    return list(zip(edges[:-1], edges[1:], strict=True))


def _repeated(ordered):
    """The keys that occur more than once in ascending ``ordered`` (sorted,
    distinct), or None."""
    same = ordered[1:] == ordered[:-1]
    return np.unique(ordered[1:][same]) if same.any() else None


def _query_counts(codes, n_queries):
    """The rows of each query: ``np.bincount`` a slice at a time (it copies
    its input as intp)."""
    counts = np.zeros(n_queries, dtype=np.int64)
    step = max(_STEP, n_queries)
    for a in range(0, codes.shape[0], step):
        counts += np.bincount(codes[a : a + step], minlength=n_queries)
    return counts


def _sort_keys(keys, codes, n_queries, grouped=False):
    """``(order, repeated)``: the order of ``keys`` ascending (not a ranking:
    keys sorted for a join), as int32 when the rows allow, and the keys that
    occur more than once (see :func:`_repeated`).

    Keys that hold the query code in their high bits sort query by query:
    the rows grouped by query with a radix sort (unless ``grouped``), then
    slices of whole queries (about ``_STEP`` rows each) sorted on the
    reader's threads, the keys of every query of a slice at once as the
    rows of a matrix padded to its longest query. Equal keys can only meet
    within a query, so that each slice finds its own repeated keys. A
    matrix much larger than the rows (query lengths far apart), or keys
    that mix queries in, are sorted whole.
    """
    n = keys.shape[0]
    counts = _query_counts(codes, n_queries) if n else None
    width = int(counts.max()) if n else 0
    kind = np.int32 if n < 2**31 else np.int64
    if n_queries > _MAX_CODED or n == 0 or n_queries * width > 2 * n:
        out = np.argsort(keys).astype(kind, copy=False)
        return out, _repeated(keys[out])
    rows = None if grouped else stable_group_order(codes, n_queries)
    g = keys if rows is None else np.take(keys, rows)
    end = np.cumsum(counts)
    start = end - counts
    out = np.empty(n, dtype=kind)

    def sort_slice(span):
        qa, qb = span
        a, b = int(start[qa]), int(end[qb - 1])
        c = counts[qa:qb]
        m, w = qb - qa, int(c.max())
        part = g[a:b]
        if w == 0:
            return None
        if m * w == b - a:  # queries of one length
            local = np.argsort(part.reshape(m, w), axis=1)
            local += np.arange(0, m * w, w)[:, None]
            local = local.reshape(-1)
        else:
            first = start[qa:qb] - a
            q = np.repeat(np.arange(m), c)
            slot = np.arange(b - a) - first[q]
            # the padding holds the largest key: wherever it lands among
            # keys equal to it, the keys left once it is dropped are in order
            mat = np.full((m, w), np.iinfo(np.uint64).max, dtype=np.uint64)
            mat[q, slot] = part
            local = np.argsort(mat, axis=1)
            local = (local + first[:, None])[local < c[:, None]]
        found = _repeated(part[local])
        local += a
        out[a:b] = local if rows is None else rows[local]
        return found

    spans = _query_spans(start, n)
    found = [f for f in _in_order(sort_slice, spans) if f is not None]
    return out, (np.concatenate(found) if found else None)


class _KeyIndex:
    """The distinct uint64 keys of a table, sorted, for lookups.

    Looked up in a hash table of the sorted keys, one probe a key: one
    small table per query (:func:`._keys.group_table`) when the keys hold
    ``n_groups`` query codes in their high bits, so that the lookups of a
    query's documents stay in a few kilobytes, else one table of all
    (:func:`._keys.key_table`). ``duplicate`` tells whether two rows share
    a key (the index is then searched with a binary search, which finds
    one of them).
    """

    def __init__(self, keys, order=None, n_groups=None):
        # not a ranking: the sorted keys of a lookup table
        if order is None:
            order = np.argsort(keys)
            if order.shape[0] < 2**31:
                order = order.astype(np.int32)
        self.order = order
        self.sorted = keys[order]
        self.duplicate = bool((self.sorted[1:] == self.sorted[:-1]).any())
        # a hash table of the keys (each once: the join of a table with
        # repeated keys is done on the bytes of the ids)
        self._grouped = False
        if self.duplicate or self.sorted.shape[0] >= 2**31:
            self._table = None
        elif n_groups is not None:
            self._table = _keys.group_table(self.sorted, n_groups)
            self._grouped = True
        else:
            self._table = _keys.key_table(self.sorted)

    def find(self, keys, ascending=False) -> np.ndarray:
        """The row of each key, -1 where it is absent (``ascending``: kept
        for callers that know their keys' order; the lookups do not need
        it)."""
        pos = self.positions(keys)
        if self.order.shape[0] == 0:
            return pos
        return np.where(pos >= 0, self.order[np.maximum(pos, 0)], -1)

    def hits(self, keys):
        """``(at, pos)``: the index in ``keys`` of each key found
        (ascending) and its position among the sorted keys."""
        if self._table is not None and self._grouped:
            keys = np.ascontiguousarray(keys, dtype=np.uint64)
            return _keys.group_hits(*self._table, keys)
        found = self.positions(keys)
        at = np.flatnonzero(found >= 0)
        return at, found[at]

    def positions(self, keys, ascending=False) -> np.ndarray:
        """The position of each key among the sorted keys, -1 where absent
        (one of them when a key is repeated)."""
        n = self.sorted.shape[0]
        if n == 0:
            return np.full(keys.shape[0], -1, dtype=np.int64)
        if self._table is not None:
            keys = np.ascontiguousarray(keys, dtype=np.uint64)
            probe = _keys.group_probe if self._grouped else _keys.probe
            return probe(*self._table, keys)
        pos = np.searchsorted(self.sorted, keys)
        pos[pos == n] = 0
        return np.where(self.sorted[pos] == keys, pos, -1)


class Qrels(_QrelsWriter, _Table):
    """Relevance judgments: one (query, document, relevance) per row.

    Build one with :func:`read_qrels`. Query and document ids are kept as
    byte strings (compared byte-wise, as trec_eval does); the properties
    return them as ``str``.

    Parameters
    ----------
    qid_values, codes, docno, values, keys, lines : object
        The table's internal columns, as :func:`read_qrels` builds them.
    source : str, default=None
        Where the judgments were read from.
    h40 : ndarray, default=None
        Internal document hashes.

    Attributes
    ----------
    source : str or None
        Where the judgments were read from.
    n_queries : int
        Number of judged queries.
    queries : ndarray of str
        The judged query ids, in natural order.
    qid, docno, relevance : ndarray
        Query id, document id and relevance of each judgment.

    See Also
    --------
    read_qrels : Read qrels from a file, a DataFrame or a dict.
    Run : Retrieved documents and their scores.

    Examples
    --------
    >>> from skrank.trec import read_qrels
    >>> qrels = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
    >>> len(qrels), qrels.n_queries
    (3, 2)
    >>> qrels.relevance
    array([2, 0, 1])
    """

    _value_name = "relevance"
    _kind_name = "the qrels"

    @property
    def relevance(self) -> np.ndarray:
        """Relevance of each row (negative: pooled but not assessed).

        See Also
        --------
        Run.score : The score of each retrieved document.
        """
        return self._values

    def __repr__(self) -> str:
        source = f", source={self.source!r}" if self.source else ""
        return f"Qrels({len(self)} judgments, {self.n_queries} queries{source})"


class Run(_RunWriter, _Table):
    """A ranked retrieval run: one (query, document, score) per row.

    Build one with :func:`read_run`. Higher scores rank first; the ``rank``
    column of a TREC file is ignored, as trec_eval ignores it.

    Parameters
    ----------
    *args
        The table's internal columns, as :func:`read_run` builds them.
    name : str, default=None
        The run id.
    last_name : str, default=None
        The run id of the last line of a TREC file.
    **kwargs
        The source and internal hashes, as :func:`read_run` gives them.

    Attributes
    ----------
    name : str or None
        The run id (the last field of the first line of a TREC file).
    last_name : str or None
        The run id of the last line of a TREC file, which trec_eval prints as
        its ``runid`` (``parse_results_line`` of get_trec_results.c keeps the
        last one read); ``name`` for a run built otherwise.
    source : str or None
        Where the run was read from.
    n_queries : int
        Number of queries in the run.
    queries : ndarray of str
        The query ids, in natural order.
    qid, docno, score : ndarray
        Query id, document id and score of each retrieved document.

    See Also
    --------
    read_run : Read a run from a file, a DataFrame or a dict.
    Qrels : Relevance judgments.

    Examples
    --------
    >>> from skrank.trec import read_run
    >>> run = read_run({"q1": {"d1": 0.5, "d2": 1.5}}, name="bm25")
    >>> run
    Run('bm25', 2 documents, 1 queries)
    >>> run.score
    array([0.5, 1.5])
    """

    _value_name = "score"
    _kind_name = "the run"

    def __init__(self, *args, name=None, last_name=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = name
        self._last_name = last_name

    @property
    def last_name(self):
        """The run id of the last line of a TREC file (``name`` otherwise).

        See Also
        --------
        Run.name : The run id of the first line.
        """
        return self.name if self._last_name is None else self._last_name

    @property
    def score(self) -> np.ndarray:
        """Score of each row.

        See Also
        --------
        Qrels.relevance : The relevance of each judged document.
        """
        return self._values

    def __repr__(self) -> str:
        return f"Run({self.name!r}, {len(self)} documents, {self.n_queries} queries)"


def _finish_table(
    kind, qid_values, codes, docno, values, h40, lines, source, name=None, last=None
):
    """Turn per-row hashes into keys (in place) and build the table."""
    n_q = qid_values.shape[0]
    keep_hash = h40.copy() if n_q > _MAX_CODED else None
    keys = _pair_keys(codes, h40, n_q, out=h40)
    if kind == "run":
        return Run(
            qid_values,
            codes,
            docno,
            values,
            keys,
            lines,
            source=source,
            h40=keep_hash,
            name=name,
            last_name=last,
        )
    return Qrels(
        qid_values, codes, docno, values, keys, lines, source=source, h40=keep_hash
    )
