"""Sphinx directives that compute what the skrank documentation shows.

* ``.. skrank-run::`` runs its Python content when the documentation builds
  and shows the code and what it printed. Blocks of one page share a
  namespace. An exception or a warning raised by the code fails the build.
* ``.. skrank-cli:: evaluate ...`` runs skrank's command line at build time
  and shows the command and what it printed.
* ``.. skrank-metric-table::`` renders the metric catalogue from the registry
  (:data:`skrank.measures.MEASURES`), so the table cannot drift from the
  code: a metric without a formula here, or a formula for a metric that does
  not exist, fails the build.
* ``.. skrank-retrieval-table::`` renders the retrieval metrics, the
  Measures that :data:`skrank._retrieval.RETRIEVAL` offers.
* ``.. skrank-comparison:: ties`` and ``.. skrank-comparison:: conventions``
  render the comparison with scikit-learn, trec_eval, ranx and TF Similarity,
  every number computed by :mod:`skrank_compare` during the build.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import textwrap
import traceback
import warnings

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _fmt(value, digits=4) -> str:
    if value is None:
        return "--"
    if isinstance(value, tuple):
        return " / ".join(_fmt(v, digits) for v in value)
    value = float(value)
    if value != value:
        return "nan"
    text = f"{value:.{digits}f}"
    return "0" if float(text) == 0 else text.rstrip("0").rstrip(".")


def _list_table(header, rows, widths=None, css="skrank-numbers") -> str:
    lines = [".. list-table::", "   :header-rows: 1", f"   :class: {css}"]
    if widths:
        lines.append("   :widths: " + " ".join(map(str, widths)))
    lines.append("")
    for row in [header, *rows]:
        first = True
        for cell in row:
            # a cell may hold several paragraphs, separated by blank lines
            head, *rest = str(cell).split("\n")
            lines.append(("   * - " if first else "     - ") + head)
            lines.extend(("       " + line) if line else "" for line in rest)
            first = False
    return "\n".join(lines) + "\n"


class _RstDirective(SphinxDirective):
    """A directive that renders reStructuredText it generates."""

    def render(self, text: str):
        node = nodes.container()
        source = f"<{self.name} in {self.env.docname}>"
        self.state.nested_parse(
            StringList(text.splitlines(), source=source), self.content_offset, node
        )
        return node.children


# --------------------------------------------------------------------------
# skrank-run
# --------------------------------------------------------------------------


class RunDirective(SphinxDirective):
    """Run Python code at build time; show the code and its printed output."""

    has_content = True
    option_spec = {"hide-code": directives.flag, "hide-output": directives.flag}

    def run(self):
        code = textwrap.dedent("\n".join(self.content))
        namespaces = self.env.temp_data.setdefault("skrank_run_namespaces", {})
        namespace = namespaces.setdefault(self.env.docname, {"__name__": "__main__"})
        out = io.StringIO()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with contextlib.redirect_stdout(out):
                    exec(compile(code, f"<{self.env.docname}>", "exec"), namespace)
        except Exception:
            raise self.error(
                "skrank-run: the code raised an exception:\n"
                + traceback.format_exc(limit=4)
            ) from None
        for w in caught:
            if w.category is DeprecationWarning and not str(w.filename).startswith(
                str(_skrank_dir())
            ):
                continue  # third-party deprecations inside their own code
            logger.warning(
                "skrank-run: the code warned: %s: %s",
                w.category.__name__,
                w.message,
                location=(self.env.docname, self.lineno),
            )
        result = []
        if "hide-code" not in self.options:
            block = nodes.literal_block(code, code)
            block["language"] = "python"
            result.append(block)
        printed = out.getvalue().rstrip()
        if printed and "hide-output" not in self.options:
            block = nodes.literal_block(printed, printed)
            block["language"] = "none"
            block["classes"].append("skrank-output")
            result.append(block)
        return result


class CliDirective(SphinxDirective):
    """Run ``skrank ARGS`` (the command line) at build time; show its output.

    The argument may name variables of the page's ``skrank-run`` code in
    braces (``{folder}/qrels.txt``); the command is shown without them, as
    if run from that folder.
    """

    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        import shlex

        from skrank import _cli

        written = self.arguments[0]
        namespace = self.env.temp_data.get("skrank_run_namespaces", {}).get(
            self.env.docname, {}
        )
        try:
            argv = shlex.split(written.format(**namespace))
        except (KeyError, IndexError) as exc:
            raise self.error(
                f"skrank-cli: unknown name in {written!r}: {exc}"
            ) from None
        out = io.StringIO()
        code = 0
        columns = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = "80"  # argparse's help width
        try:
            with contextlib.redirect_stdout(out):
                code = _cli.main(argv) or 0
        except SystemExit as exc:
            code = exc.code or 0
        finally:
            if columns is None:
                del os.environ["COLUMNS"]
            else:
                os.environ["COLUMNS"] = columns
        if code != 0:
            raise self.error(f"skrank-cli: 'skrank {written}' exited with {code}")
        # shown as run from the folder the page's files are in
        shown = "$ skrank " + re.sub(r"\{[^{}]*\}/?", "", written)
        text = shown + "\n" + out.getvalue().rstrip()
        block = nodes.literal_block(text, text)
        block["language"] = "console"
        return [block]


def _skrank_dir():
    import pathlib

    import skrank

    return pathlib.Path(skrank.__file__).parent


# --------------------------------------------------------------------------
# skrank-metric-table
# --------------------------------------------------------------------------


# Per-query value for one ordering; the tie-aware expectation of each is in
# the user guide's ties page and the functions' Notes.
def _range(measure) -> str:
    lo = "−∞" if measure.lower is None else f"{measure.lower:g}"
    hi = "∞" if measure.upper is None else f"{measure.upper:g}"
    left = "(" if measure.lower is None else "["
    right = ")" if measure.upper is None else "]"
    return f"{left}{lo}, {hi}{right}"


def _aliases(measure) -> list[str]:
    out = list(measure.aliases)
    for alias, implied in measure.variants:
        params = ",".join(f"{k}={v}" for k, v in implied)
        out.append(f"{alias}`` = ``{measure.name}({params})")
    if measure.trec_eval_family:
        out.append(f"{measure.trec_eval_family}_k")
    return out


class MetricTableDirective(_RstDirective):
    """The metric catalogue, read from the registry."""

    def run(self):
        from skrank import get_metric, get_metric_names
        from skrank.measures import MEASURES

        names = {m.name for m in MEASURES}
        if set(get_metric_names()) != names:
            raise ExtensionError("get_metric_names() and MEASURES disagree")
        missing = sorted(m.name for m in MEASURES if not m.formula)
        if missing:
            raise ExtensionError(
                f"skrank-metric-table: no formula declared for {missing} "
                "(Measure.formula in skrank/measures/)"
            )
        rows = []
        for m in MEASURES:
            name = f"``{m.name}@k``" if m.cutoff else f"``{m.name}``"
            # the canonical spelling of the default metric, from the registry
            canonical = get_metric(m.name).name
            if canonical != m.name:
                name += f" (``{canonical}``)"
            params = ", ".join(
                f"``{p.spelling}={p.default!r}``"
                if p.default is not None
                else f"``{p.spelling}``"
                for p in m.params
            )
            rows.append(
                [
                    f"{name}\n\n{m.title}, :func:`~skrank.{m.function}`",
                    ", ".join(f"``{a}``" for a in _aliases(m)) or "--",
                    f":math:`{m.formula}`",
                    _range(m),
                    ":math:`R = 0`" if m.undefined_without_relevant else "never",
                    params or "--",
                ]
            )
        header = [
            "Metric",
            "Aliases",
            "Value for one ordering",
            "Range",
            "Undefined when",
            "Parameters in names",
        ]
        widths = [24, 14, 27, 8, 9, 18]
        return self.render(_list_table(header, rows, widths, css="skrank-catalogue"))


# --------------------------------------------------------------------------
# skrank-retrieval-table
# --------------------------------------------------------------------------


class RetrievalTableDirective(_RstDirective):
    """The retrieval metrics of :mod:`skrank.retrieval`: the Measures that its
    catalogue (:data:`skrank._retrieval.RETRIEVAL`) offers."""

    def run(self):
        from skrank import get_metric
        from skrank.retrieval import get_retrieval_metric_names

        rows = []
        for name in get_retrieval_metric_names():
            m = get_metric(name).measure
            rows.append(
                [
                    f"``{m.name}@k``",
                    m.title,
                    ", ".join(f"``{a}``" for a in m.aliases) or "--",
                    f":math:`{m.formula}`",
                    "yes" if m.undefined_without_relevant else "no",
                ]
            )
        header = ["Name", "Metric", "Aliases", "Value for one ordering", "Needs R"]
        return self.render(_list_table(header, rows, css="skrank-catalogue"))


# --------------------------------------------------------------------------
# skrank-comparison
# --------------------------------------------------------------------------


class ComparisonDirective(_RstDirective):
    """Tables of each tool's number on the same input, computed now."""

    required_arguments = 1

    def run(self):
        import skrank_compare

        which = self.arguments[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            if which == "ties":
                return self.render(self._ties(skrank_compare))
            if which == "conventions":
                return self.render(self._conventions(skrank_compare))
        raise self.error(f"skrank-comparison: unknown table {which!r}")

    @staticmethod
    def _ties(cmp) -> str:
        legend = "\n".join(
            f"* **{v.key}**: {v.label}: relevance "
            f"``{dict(zip(v.docnos, v.relevance, strict=True))}``"
            for v in cmp.VARIANTS
        )
        rows, why = [], []
        n_variants = len(cmp.VARIANTS)
        for row in cmp.ties_table():
            listing = "any" if len(row.inputs) == n_variants else ", ".join(row.inputs)
            rows.append(
                [
                    f"**{row.tool}**",
                    f"``{row.call}``",
                    listing,
                    *[_fmt(row.values.get(m)) for m in cmp.TIE_METRICS],
                ]
            )
            item = f"* **{row.tool}**, ``{row.call}``: {row.why}"
            if item not in why:
                why.append(item)
        header = ["Tool", "Call", "Listing", *cmp.TIE_METRICS]
        return (
            legend
            + "\n\n"
            + _list_table(header, rows)
            + "\nWhy:\n\n"
            + "\n".join(why)
            + "\n"
        )

    @staticmethod
    def _conventions(cmp) -> str:
        rows, why = [], []
        for case in cmp.conventions_table():
            situations = [w[0] for w in why]
            if case.situation not in situations:
                why.append((case.situation, []))
            number = [w[0] for w in why].index(case.situation) + 1
            why[number - 1][1].append(f"{case.metric}: {case.why}")
            rows.append(
                [
                    str(number),
                    case.metric,
                    *[_fmt(case.values.get(tool)) for tool in cmp.TOOLS],
                ]
            )
        header = ["Input", "Metric", *cmp.TOOLS]
        notes = "\n".join(
            f"{i}. **{situation[0].upper() + situation[1:]}.** " + " ".join(texts)
            for i, (situation, texts) in enumerate(why, start=1)
        )
        return _list_table(header, rows) + "\n" + notes + "\n"


# --------------------------------------------------------------------------
# docstrings inherited from scikit-learn
# --------------------------------------------------------------------------

_SKLEARN_ROLE = re.compile(r":(?:ref|term):`([^`<]*?)\s*(?:<[^`>]*>)?`")


def _plain_sklearn_refs(app, what, name, obj, options, lines):
    """Turn scikit-learn's cross-references to its own glossary into text.

    Methods inherited from scikit-learn (``get_params``, ``set_fit_request``
    ...) bring docstrings that refer to labels of scikit-learn's
    documentation; they have no target here.
    """
    module = getattr(obj, "__module__", "") or ""
    if not module.startswith("sklearn."):
        return
    for i, line in enumerate(lines):
        lines[i] = _SKLEARN_ROLE.sub(
            lambda m: m.group(1).strip().replace("_", " ") or m.group(0), line
        )


# --------------------------------------------------------------------------
# metric names are not e-mail addresses
# --------------------------------------------------------------------------


def _unlink_metric_names(app, doctree):
    """Undo docutils' e-mail links on metric names such as nDCG@10.

    docutils links any ``word@word`` as an address; a metric name with a
    cutoff (``nDCG@10``, ``MAP@R``) has no dot after the ``@`` and is text.
    """
    for ref in list(doctree.findall(nodes.reference)):
        uri = ref.get("refuri", "")
        if uri.startswith("mailto:") and "." not in uri.partition("@")[2]:
            ref.replace_self(nodes.Text(ref.astext()))


def setup(app):
    app.connect("autodoc-process-docstring", _plain_sklearn_refs)
    app.connect("doctree-read", _unlink_metric_names)
    app.add_directive("skrank-run", RunDirective)
    app.add_directive("skrank-cli", CliDirective)
    app.add_directive("skrank-metric-table", MetricTableDirective)
    app.add_directive("skrank-retrieval-table", RetrievalTableDirective)
    app.add_directive("skrank-comparison", ComparisonDirective)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
