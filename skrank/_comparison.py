"""The result of :func:`skrank.compare`: tables of means, intervals and tests,
and their reports (plain text, Markdown, LaTeX, JSON, DataFrames)."""

from __future__ import annotations

import math

import numpy as np

from ._faces import fill_doc
from ._frames import to_backend
from ._multiple import HSD_PAIR_COLUMNS, TUKEY_MODELS
from ._validation import InvalidParameterError, Options, plain, validate_params

#: The parameters of :meth:`Comparison.to_markdown` and
#: :meth:`Comparison.to_latex`.
_TABLE_DOCS = {
    "table_options": """digits : int, default=3
    Decimals of the means and intervals, 0 to 17.
ci : bool, default=False
    Also give the confidence interval of every mean, in brackets.
tie_bounds : bool, default=False
    Also give the range of every mean over the orderings of tied
    items (pessimistic, optimistic), in parentheses; the compared
    results must carry their tie bounds (``tie_bounds=True`` in the
    evaluation).""",
}

__all__ = [
    "Comparison",
    "PAIR_COLUMNS",
    "SUMMARY_COLUMNS",
    "TIE_PAIR_COLUMNS",
    "TIE_SUMMARY_COLUMNS",
]

SUMMARY_COLUMNS = ("system", "metric", "mean", "ci_low", "ci_high")
PAIR_COLUMNS = tuple(
    "system baseline metric diff diff_low diff_high d_z wins ties losses "
    "p_value p_adjusted significant".split()
)
# present when the compared results carry their tie bounds
TIE_SUMMARY_COLUMNS = ("tie_low", "tie_high")
TIE_PAIR_COLUMNS = ("diff_tie_low", "diff_tie_high", "tie_undecided")


# --------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------


def _json(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _fmt(v, spec=".4f"):
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:{spec}}"
    return str(v)


def _column_format(name, values):
    """One format for the column ``name`` of numbers ``values``.

    p-values: four significant digits in scientific notation
    (``4.162e-03``, ``9.055e-07``), whatever their size. Other numbers: four
    decimals (``0.6550``), unless a non-zero value is below 0.001 or 10**6
    or more, when the whole column is in scientific notation.
    """
    if name.startswith("p_"):
        return ".3e"
    sizes = [abs(v) for v in values if isinstance(v, float) and math.isfinite(v)]
    if any(0 < s < 1e-3 or s >= 1e6 for s in sizes):
        return ".3e"
    return ".4f"


class Comparison:
    """The result of :func:`compare`: per-system intervals and paired tests.

    Parameters
    ----------
    summary : list of dict
        One row per system and metric, with the keys of ``SUMMARY_COLUMNS``.
    pairs : list of dict
        One row per pair of systems and metric, with the keys of
        ``PAIR_COLUMNS``.
    queries : ndarray
        The query ids the statistics are computed over.
    dropped : ndarray
        Query ids left out because a system lacks them.
    settings : dict
        The options of :func:`compare` that produced this result.

    Attributes
    ----------
    summary_ : list of dict
        One row per system and metric: ``system``, ``metric``, ``mean``,
        ``ci_low``, ``ci_high``.
    pairs_ : list of dict
        One row per compared pair and metric: ``system``, ``baseline``,
        ``metric``, ``diff`` (mean of ``system - baseline`` over queries),
        ``diff_low``, ``diff_high`` (its interval), ``d_z`` (mean difference
        over its standard deviation), ``wins``, ``ties``, ``losses``
        (queries where ``system`` scores more, the same, less),
        ``p_value`` (raw), ``p_adjusted`` (after the correction) and
        ``significant`` (``p_adjusted <= 1 - confidence_level``).
        When the results carry tie bounds (``tie_bounds=True`` in the
        evaluation), ``summary_`` also has ``tie_low`` and ``tie_high``, the
        mean under the pessimistic and the optimistic ordering of tied items,
        and ``pairs_`` has ``diff_tie_low`` and ``diff_tie_high``, the range
        of the mean difference over the orderings of both systems' tied
        items, and ``tie_undecided``, the number of queries whose outcome
        (win, tie or loss) depends on those orderings; NaN where a system
        carries no bounds for the metric. A difference whose tie range
        contains 0 could change sign with the order of tied items.
        With ``test="tukey"`` or ``"tukey_oneway"``, ``pairs_`` also has
        ``hsd_q`` (the studentized range statistic of the pair) and
        ``hsd_low``, ``hsd_high`` (its simultaneous interval).
    queries_ : ndarray
        The query ids compared, sorted.
    dropped_ : ndarray
        Query ids some system lacks, left out by ``queries="intersection"``
        (empty otherwise).
    settings_ : dict
        ``test``, ``correction``, ``interval``, ``confidence_level``,
        ``n_resamples``, ``queries``, ``baseline`` (a name, or a list of
        names when a list was given) and ``seeded`` (whether a
        ``random_state`` was given).

    See Also
    --------
    compare : Build a comparison.

    Notes
    -----
    Printed (``repr``, and the command line's ``skrank compare``), each
    column has one number format: p-values with four significant digits in
    scientific notation, the other numbers with four decimals (or, in a
    column with a non-zero value below 0.001, in scientific notation too). A
    legend under the tables says what ``d_z`` is and, when the intervals or
    p-values are resampled without a ``random_state``, that they change from
    one call to the next.

    Examples
    --------
    >>> from skrank import compare
    >>> res = compare({"a": {"map": [0.2, 0.4, 0.5]},
    ...                "b": {"map": [0.1, 0.3, 0.5]}}, baseline="b", interval="t")
    >>> row = res.pairs_[0]
    >>> row["system"], row["baseline"], row["wins"], row["ties"], row["losses"]
    ('a', 'b', 2, 1, 0)
    """

    def __init__(self, summary, pairs, queries, dropped, settings):
        self.summary_ = summary
        self.pairs_ = pairs
        self.queries_ = queries
        self.dropped_ = dropped
        self.settings_ = settings

    @property
    def _has_tie_bounds(self):
        return bool(self.summary_) and "tie_low" in self.summary_[0]

    def _columns(self, table):
        if table == "pairs":
            extra = TIE_PAIR_COLUMNS if self._has_tie_bounds else ()
            if self.pairs_ and HSD_PAIR_COLUMNS[0] in self.pairs_[0]:
                extra = HSD_PAIR_COLUMNS + extra
            return PAIR_COLUMNS + extra
        extra = TIE_SUMMARY_COLUMNS if self._has_tie_bounds else ()
        return SUMMARY_COLUMNS + extra

    def to_frame(self, table="pairs", backend="pandas"):
        """Return one of the tables as a DataFrame of the caller's library.

        Parameters
        ----------
        table : {"pairs", "summary"}, default="pairs"
            ``"pairs"``: the paired comparisons; ``"summary"``: the mean and
            interval of every system and metric.
        backend : {"pandas", "polars", "pyarrow"}, default="pandas"
            The library of the table: a pandas DataFrame, a polars DataFrame
            or a pyarrow Table, with the same columns.

        Returns
        -------
        frame : pandas.DataFrame, polars.DataFrame or pyarrow.Table
            One row per entry of ``pairs_`` or ``summary_``, in order, and
            one column per key of theirs.

        Raises
        ------
        ValueError
            When ``table`` or ``backend`` is not one of its options.
        ImportError
            When the library of ``backend`` is not installed.

        See Also
        --------
        Comparison.to_dict : The same data as plain Python objects.

        Examples
        --------
        >>> from skrank import compare
        >>> res = compare({"a": {"p": [1.0, 0.5]}, "b": {"p": [0.5, 0.5]}},
        ...               interval="t")
        >>> res.to_frame("summary").shape
        (2, 5)
        >>> res.to_frame(backend="pyarrow").num_rows
        1
        """
        validate_params(
            "Comparison.to_frame",
            {"table": table},
            {"table": [Options(("pairs", "summary"))]},
        )
        rows = self.pairs_ if table == "pairs" else self.summary_
        columns = {}
        for name in self._columns(table):
            values = [r[name] for r in rows]
            # names as text (object arrays, which the writer passes to every
            # library as Python strings), the rest as numpy infers them
            text = any(isinstance(v, str) for v in values)
            columns[name] = np.array(values, dtype=object if text else None)
        return to_backend(columns, backend, "Comparison.to_frame")

    def to_dict(self):
        """Return the result as JSON-ready Python objects.

        Returns
        -------
        data : dict
            ``summary`` and ``pairs`` (lists of dicts), ``queries`` and
            ``dropped`` (lists of ids), ``settings``. Undefined numbers
            (NaN) become ``None``.

        See Also
        --------
        Comparison.to_frame : The tables as DataFrames.

        Examples
        --------
        >>> import json
        >>> from skrank import compare
        >>> res = compare({"a": {"p": [1.0, 0.5]}, "b": {"p": [0.5, 0.5]}},
        ...               interval="t")
        >>> sorted(json.loads(json.dumps(res.to_dict())))
        ['dropped', 'pairs', 'queries', 'settings', 'summary']
        """
        return {
            "summary": [{k: _json(v) for k, v in r.items()} for r in self.summary_],
            "pairs": [{k: _json(v) for k, v in r.items()} for r in self.pairs_],
            "queries": self.queries_.tolist(),
            "dropped": self.dropped_.tolist(),
            "settings": dict(self.settings_),
        }

    @fill_doc(texts=_TABLE_DOCS)
    def to_markdown(self, *, digits=3, ci=False, tie_bounds=False):
        """Return a Markdown table of the means, as in an IR paper.

        One row per system, one column per metric. A dagger (†) marks the
        means significantly different from the baseline's (adjusted p-value at
        most ``1 - confidence_level``); without a baseline, every system has a
        letter and its cells list the letters of the systems it differs from
        significantly; with several baselines, every baseline has a letter
        and the cells list the letters of the baselines they differ from
        significantly. The highest mean of every metric is in bold. A legend
        line names the test, the correction and the level.

        Parameters
        ----------
        %(table_options)s

        Returns
        -------
        table : str
            The table and its legend.

        See Also
        --------
        Comparison.to_latex : The same table in LaTeX.

        Examples
        --------
        >>> from skrank import compare
        >>> res = compare({"bm25": {"map": [0.1, 0.2, 0.3, 0.4]},
        ...                "dense": {"map": [0.2, 0.3, 0.5, 0.5]}},
        ...               baseline="bm25", interval="t")
        >>> print(res.to_markdown())
        | System | map |
        |:--|--:|
        | bm25 | 0.250 |
        | dense | **0.375**† |
        <BLANKLINE>
        † significantly different from the baseline bm25 (paired t-test, Holm correction over 1 test, α = 0.05). Bold: best mean per metric.
        """  # noqa: E501
        systems, labels, metrics, cells, legend = _report(self, digits, ci, tie_bounds)
        lines = [
            "| System | " + " | ".join(_markdown_text(m) for m in metrics) + " |",
            "|:--|" + "--:|" * len(metrics),
        ]
        for name, row in _styled_rows(
            systems,
            labels,
            metrics,
            cells,
            _markdown_text,
            "**{}**",
            "†",
            "<sup>{}</sup>",
        ):
            lines.append(f"| {name} | " + " | ".join(row) + " |")
        pieces = {"dagger": "†", "alpha": "α"}
        text = "".join(pieces.get(k, t) for k, t in legend)
        return "\n".join(lines) + "\n\n" + text

    @fill_doc(texts=_TABLE_DOCS)
    def to_latex(self, *, digits=3, ci=False, tie_bounds=False):
        r"""Return a LaTeX (booktabs) table of the means, as in an IR paper.

        The table of :meth:`to_markdown` as a ``tabular`` with
        ``\toprule``, ``\midrule`` and ``\bottomrule`` (it needs
        ``\usepackage{booktabs}``): a dagger (``$^\dagger$``) or superscript
        letters mark the significant differences, ``\textbf`` the best mean
        of every metric; the legend is the last row, below the table.

        Parameters
        ----------
        %(table_options)s

        Returns
        -------
        table : str
            The ``tabular`` environment.

        See Also
        --------
        Comparison.to_markdown : The same table in Markdown.

        Examples
        --------
        >>> from skrank import compare
        >>> res = compare({"bm25": {"map": [0.1, 0.2, 0.3, 0.4]},
        ...                "dense": {"map": [0.2, 0.3, 0.5, 0.5]}},
        ...               baseline="bm25", interval="t")
        >>> print(res.to_latex())
        \begin{tabular}{lr}
        \toprule
        System & map \\
        \midrule
        bm25 & 0.250 \\
        dense & \textbf{0.375}$^{\dagger}$ \\
        \bottomrule
        \multicolumn{2}{l}{\footnotesize $^{\dagger}$ significantly different from the baseline bm25 (paired t-test, Holm correction over 1 test, $\alpha$ = 0.05). Bold: best mean per metric.} \\
        \end{tabular}
        """  # noqa: E501
        systems, labels, metrics, cells, legend = _report(self, digits, ci, tie_bounds)
        lines = [
            "\\begin{tabular}{l" + "r" * len(metrics) + "}",
            "\\toprule",
            "System & " + " & ".join(_latex_text(m) for m in metrics) + " \\\\",
            "\\midrule",
        ]
        for name, row in _styled_rows(
            systems,
            labels,
            metrics,
            cells,
            _latex_text,
            "\\textbf{{{}}}",
            "$^{{\\dagger}}$",
            "$^{{{}}}$",
        ):
            lines.append(f"{name} & " + " & ".join(row) + " \\\\")
        pieces = {"dagger": "$^{\\dagger}$", "alpha": "$\\alpha$"}
        text = "".join(pieces.get(k, _latex_text(t)) for k, t in legend)
        lines += [
            "\\bottomrule",
            f"\\multicolumn{{{len(metrics) + 1}}}{{l}}{{\\footnotesize {text}}} \\\\",
            "\\end{tabular}",
        ]
        return "\n".join(lines)

    def __repr__(self):
        s = self.settings_
        pct = f"{100 * s['confidence_level']:g}%"
        head = (
            f"Comparison over {len(self.queries_)} queries"
            + (f" ({len(self.dropped_)} dropped)" if len(self.dropped_) else "")
            + f"; {pct} {s['interval']} intervals; test={s['test']!r}, "
            f"correction={s['correction']!r}"
        )
        notes = [
            "d_z: the mean difference over the standard deviation of the "
            "per-query differences (Cohen's d_z for paired samples)."
        ]
        random = s["interval"] in ("bca", "percentile") or s["test"] in (
            "randomization",
            "bootstrap",
        )
        if random and not s.get("seeded", True):
            notes.append(
                "No random_state was given: the resampled intervals and "
                "p-values change from one call to the next; pass an int "
                "(--seed on the command line) to repeat them."
            )
        return "\n\n".join(
            [
                head,
                _table(self.summary_, self._columns("summary")),
                _table(self.pairs_, self._columns("pairs")),
                "\n".join(notes),
            ]
        )


_TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "Tukey's HSD, two-way ANOVA with queries as blocks",
    "tukey_oneway": "Tukey's HSD, one-way ANOVA",
}
_CORRECTION_NAMES = {
    "holm": "Holm correction",
    "bonferroni": "Bonferroni correction",
    "fdr_bh": "Benjamini-Hochberg FDR control",
}
_INTERVAL_NAMES = {
    "bca": "BCa bootstrap",
    "percentile": "percentile bootstrap",
    "t": "Student t",
}
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _styled_rows(systems, labels, metrics, cells, escape, bold, dagger, marks):
    """``(name, cells)`` of each system's row of a report, in one markup:
    ``escape`` quotes text, ``bold`` and ``marks`` are format strings for a
    best mean and for the letters of significance, ``dagger`` the mark
    against a baseline."""
    for system in systems:
        name = escape(system)
        if system in labels:
            name = f"{name} ({labels[system]})"
        row = []
        for m in metrics:
            mean, best, signs, interval, tie_range = cells[system][m]
            text = bold.format(mean) if best else mean
            if signs == ["dagger"]:
                text += dagger.format()
            elif signs:
                text += marks.format("".join(signs))
            if interval is not None:
                text += " " + interval
            if tie_range is not None:
                text += " " + tie_range
            row.append(text)
        yield name, row


def _latex_text(text):
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _markdown_text(text):
    return str(text).replace("|", "\\|")


def _label(i, n):
    """The letter of the ``i``-th of ``n`` systems (a number beyond 26)."""
    return chr(ord("a") + i) if n <= 26 else str(i + 1)


def _report(comparison, digits, ci, tie_bounds=False):
    """The content of a report table, independent of the markup.

    Returns ``(systems, labels, metrics, cells, legend)``: ``cells[s][m]`` is
    ``(mean, bold, marks, interval, tie_range)`` with ``mean``, ``interval``
    and ``tie_range`` (or ``None``) as text, ``bold`` true for the best mean
    of the metric (after rounding to ``digits``) and ``marks`` the letters
    (or ``"dagger"``) of the significant comparisons; ``legend`` is a list
    of ``(kind, text)`` pieces, ``kind`` being ``"text"``, ``"dagger"`` or
    ``"alpha"``.
    """
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)):
        raise InvalidParameterError(
            f"The 'digits' parameter of the Comparison reports must be an int "
            f"from 0 to 17. Got {plain(digits)} instead."
        )
    if not 0 <= digits <= 17:
        raise InvalidParameterError(
            f"The 'digits' parameter of the Comparison reports must be an int "
            f"from 0 to 17. Got {digits} instead."
        )
    if not isinstance(tie_bounds, (bool, np.bool_)):
        raise InvalidParameterError(
            "The 'tie_bounds' parameter of the Comparison reports must be a "
            f"bool. Got {plain(tie_bounds)} instead."
        )
    if tie_bounds and not comparison._has_tie_bounds:
        raise InvalidParameterError(
            "Comparison reports: tie_bounds=True needs results that carry "
            "their tie bounds; evaluate with average=None and tie_bounds=True "
            "(evaluate_run: return_per_query=True, tie_bounds=True) before "
            "comparing."
        )
    s = comparison.settings_
    summary = {(r["system"], r["metric"]): r for r in comparison.summary_}
    systems = list(dict.fromkeys(r["system"] for r in comparison.summary_))
    metrics = list(dict.fromkeys(r["metric"] for r in comparison.summary_))
    baseline = s["baseline"]
    # several baselines: each has a letter, as every system without one
    lettered = baseline if isinstance(baseline, list) else None
    if lettered is not None and len(lettered) == 1:
        baseline, lettered = lettered[0], None
    if baseline is None:
        lettered = systems
    labels = (
        {}
        if lettered is None
        else {name: _label(i, len(lettered)) for i, name in enumerate(lettered)}
    )
    marks = {key: set() for key in summary}
    for r in comparison.pairs_:
        if not r["significant"]:
            continue
        m = r["metric"]
        if not labels:
            marks[r["system"], m].add("dagger")
            continue
        marks[r["system"], m].add(r["baseline"])
        if r["system"] in labels:
            marks[r["baseline"], m].add(r["system"])

    def num(v):
        return "nan" if math.isnan(v) else f"{v:.{digits}f}"

    cells = {}
    for m in metrics:
        shown = {name: num(summary[name, m]["mean"]) for name in systems}
        best = max(float(v) for v in shown.values())
        for name in systems:
            row = summary[name, m]
            mk = marks[name, m]
            if labels:
                mk = [labels[o] for o in labels if o in mk]
            else:
                mk = sorted(mk)
            interval = f"[{num(row['ci_low'])}, {num(row['ci_high'])}]" if ci else None
            tie_range = (
                f"({num(row['tie_low'])}, {num(row['tie_high'])})"
                if tie_bounds
                else None
            )
            cells.setdefault(name, {})[m] = (
                shown[name],
                float(shown[name]) == best,
                mk,
                interval,
                tie_range,
            )
    family = sum(not math.isnan(r["p_value"]) for r in comparison.pairs_)
    alpha = f"{round(1.0 - s['confidence_level'], 12):g}"
    test = _TEST_NAMES[s["test"]]
    if s["test"] in ("randomization", "bootstrap"):
        test += f", {s['n_resamples']} resamples"
    tests = f"{family} test{'s' if family != 1 else ''}"
    if s["test"] in TUKEY_MODELS:
        n_pairs = len(systems) * (len(systems) - 1) // 2
        how = (
            f" ({test}, simultaneous over the {n_pairs} pair"
            f"{'s' if n_pairs != 1 else ''} of systems of each metric, "
        )
    elif s["correction"] is None:
        how = f" ({test}, {tests}, no correction, "
    else:
        how = f" ({test}, {_CORRECTION_NAMES[s['correction']]} over {tests}, "
    if not labels:
        legend = [
            ("dagger", ""),
            ("text", f" significantly different from the baseline {baseline}"),
        ]
    else:
        legend = [
            (
                "text",
                "Superscript letters: significantly different from the "
                + ("systems" if baseline is None else "baselines")
                + " with those letters",
            )
        ]
    legend += [("text", how), ("alpha", ""), ("text", f" = {alpha}).")]
    legend.append(("text", " Bold: best mean per metric."))
    if ci:
        pct = f"{100 * s['confidence_level']:g}%"
        legend.append(
            (
                "text",
                f" Brackets: {pct} {_INTERVAL_NAMES[s['interval']]} "
                "confidence interval of the mean.",
            )
        )
    if tie_bounds:
        legend.append(
            (
                "text",
                " Parentheses: the mean under the pessimistic and the "
                "optimistic ordering of tied items.",
            )
        )
    return systems, labels, metrics, cells, legend


def _table(rows, columns):
    specs = [_column_format(c, [r[c] for r in rows]) for c in columns]
    cells = [list(columns)] + [
        [_fmt(r[c], spec) for c, spec in zip(columns, specs, strict=True)] for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = [
        "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in cells
    ]
    return "\n".join(lines)
