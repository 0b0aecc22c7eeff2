"""Fuzzing the metric-name grammar and the command line's options.

Arbitrary text (metric names and aliases with random mutations, Unicode
digits, huge numbers, underscores, parentheses, commas, dots, ``@``,
whitespace) goes through :func:`skrank._registry.get_metric` and
:func:`skrank._registry.parse_metrics`: the only exception allowed is
skrank's ``InvalidParameterError``, with a one-line message, and whatever
parses round-trips through its canonical spelling. A few hostile ``-m``,
``-l`` and ``--digits`` values go through the command line in-process.

The suite runs a small, fixed (derandomized) number of examples. A longer,
random search::

    SKRANK_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest tests/test_registry_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skrank._cli import main
from skrank._measures import MEASURES  # noqa: E402
from skrank._registry import (  # noqa: E402
    _ALIASES,
    get_metric,
    parse_metrics,
    read_number,
)
from skrank._validation import (
    Interval,
    InvalidParameterError,  # noqa: E402
)

_LONG_RUN = os.environ.get("SKRANK_FUZZ_EXAMPLES")
EXAMPLES = int(_LONG_RUN) if _LONG_RUN else 200

fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,  # nothing written into the checkout
    derandomize=not _LONG_RUN,  # the suite's run is the same every time
    suppress_health_check=[HealthCheck.too_slow],
)

# -- building blocks --------------------------------------------------------

ALIASES = sorted(_ALIASES)
TREC_NAMES = ["P", "recall", "map_cut", "ndcg_cut", "success", "recip_rank", "Rprec"]
KEYS = sorted({k for m in MEASURES for p in m.params for k in (p.spelling, p.keyword)})
WHITESPACE = ["", " ", "  ", "\t", "\n", "\xa0", "\u2003", "\x1c", "\r\n"]
HOSTILE_NUMBERS = [
    "1_0", "0.000_1", "+1", "-1", "-0", ".5", "5.", "1e3", "1E-3", "1e+300",
    "1e400", "-1e400", "1e-400", "nan", "NaN", "-nan", "inf", "-inf",
    "Infinity", "infinity", "0x10", "1e", ".", "--1", "²", "١٠", "１０", "٠.٥",
    "½", "Ⅻ", "𝟘", "1٠", "1e²", "0" * 60 + "1", "9" * 400, "",
]  # fmt: skip
# digits and numerals of other scripts, superscripts, fractions...
OTHER_DIGITS = [c for c in map(chr, range(0x80, 0x20000)) if c.isnumeric()]
unicode_digits = st.text(st.sampled_from(OTHER_DIGITS), min_size=1, max_size=4)
huge_numbers = st.integers(0, 10**130).map(str)
digit_runs = st.sampled_from(["0" * 200 + "1", "9" * 101, "1" * 5000, "0"]) | st.text(
    "0123456789", min_size=1, max_size=30
)
punctuation = st.sampled_from(list("@.,()=_+-eE ") + ["@@", "((", "))", ",,", "=="])
pieces = st.one_of(
    st.sampled_from(ALIASES),
    st.sampled_from(TREC_NAMES),
    st.sampled_from(KEYS),
    st.sampled_from(["exponential", "linear"]),
    st.sampled_from(HOSTILE_NUMBERS),
    st.sampled_from(WHITESPACE),
    punctuation,
    unicode_digits,
    huge_numbers,
    digit_runs,
    st.text(max_size=5),
)
ws = st.sampled_from(["", "", "", " ", "  ", "\t"])


def _value(param):
    """Valid values of a metric parameter, written as in a name: read from
    the parameter's declared interval."""
    if param.kind is str:
        return st.sampled_from(param.constraints[0].values)
    interval = next(c for c in param.constraints if isinstance(c, Interval))
    lo = -1e15 if interval.left is None else interval.left
    hi = 1e15 if interval.right is None else interval.right
    open_lo = interval.left is not None and interval.closed in ("right", "neither")
    open_hi = interval.right is not None and interval.closed in ("left", "neither")
    if param.kind is int:
        return st.integers(int(lo) + open_lo, int(hi) - open_hi).map(str)
    floats = st.floats(lo, hi, exclude_min=open_lo, exclude_max=open_hi)
    return floats.map(repr)


@st.composite
def valid_names(draw):
    """(name, measure, params, k): a well-formed name and what it means."""
    measure = draw(st.sampled_from(MEASURES))
    alias = draw(
        st.sampled_from(sorted(a for a, (m, _) in _ALIASES.items() if m is measure))
    )
    implied = dict(_ALIASES[alias][1])
    text = draw(ws) + alias + draw(ws)
    params = dict(implied)
    written = []
    for param in draw(st.permutations(measure.params)):
        if draw(st.booleans()):
            key = draw(st.sampled_from([param.spelling, param.keyword]))
            value = draw(_value(param))
            written.append(f"{draw(ws)}{key}{draw(ws)}={draw(ws)}{value}{draw(ws)}")
            params[param.keyword] = value if param.kind is str else float(value)
    if written or draw(st.booleans()):
        text += "(" + ",".join(written) + ")" + draw(ws)
    k = None
    if measure.cutoff and draw(st.booleans()):
        k = draw(st.integers(1, 10**100 - 1))
        zeros = "0" * draw(st.integers(0, 3))
        text += "@" + draw(ws) + zeros + str(k) + draw(ws)
    return text, measure, params, k


@st.composite
def trec_names(draw):
    family = draw(st.sampled_from(["P", "recall", "map_cut", "ndcg_cut", "success"]))
    cutoffs = draw(st.lists(st.integers(1, 10**40), min_size=1, max_size=4))
    sep = draw(st.sampled_from("._"))
    return family + sep + ",".join(str(c) for c in cutoffs)


@st.composite
def mutated(draw, seeds):
    """A name with a few random insertions, deletions and replacements."""
    text = draw(seeds)
    for _ in range(draw(st.integers(0, 4))):
        where = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        if op == "insert":
            text = text[:where] + draw(pieces) + text[where:]
        elif op == "delete":
            text = text[:where] + text[where + draw(st.integers(1, 5)) :]
        else:
            text = text[:where] + draw(pieces) + text[where + 1 :]
    return text


names = st.one_of(
    mutated(valid_names().map(lambda t: t[0]) | trec_names()),
    st.lists(pieces, max_size=10).map("".join),
    st.text(max_size=40),
)


# -- properties -------------------------------------------------------------


def check_error(exc):
    message = str(exc)
    assert message and len(message.splitlines()) == 1, message
    assert len(message) < 2000, message


def check_round_trip(spec):
    assert get_metric(spec.name) == spec
    assert get_metric(spec.name).name == spec.name == str(spec)
    assert spec.k is None or (type(spec.k) is int and spec.k >= 1)
    for value in spec.params.values():
        assert not isinstance(value, float) or math.isfinite(value)


@fuzz
@given(names)
def test_get_metric_raises_only_its_own_error_and_round_trips(text):
    try:
        spec = get_metric(text)
    except InvalidParameterError as exc:
        check_error(exc)
    else:
        check_round_trip(spec)


@fuzz
@given(st.lists(names | trec_names(), min_size=1, max_size=3))
def test_parse_metrics_raises_only_its_own_error_and_round_trips(texts):
    for metrics in (texts[0], texts):
        try:
            specs = parse_metrics(metrics, "fuzz")
        except InvalidParameterError as exc:
            check_error(exc)
        else:
            assert specs
            for spec in specs:
                check_round_trip(spec)


@fuzz
@given(valid_names())
def test_well_formed_names_parse_to_what_they_say(case):
    text, measure, params, k = case
    if text.strip() == measure.trec_eval_family and text.strip() != measure.name:
        # a bare trec_eval family ("P") stands for its default cutoffs
        specs = parse_metrics(text, "fuzz")
        assert len(specs) > 1 and all(s.measure is measure for s in specs)
        return
    spec = get_metric(text)
    assert spec.measure is measure and spec.k == k
    for keyword, value in params.items():
        assert spec.params[keyword] == value
    check_round_trip(spec)


@fuzz
@given(st.one_of(st.sampled_from(HOSTILE_NUMBERS), st.text(max_size=12), pieces))
def test_numbers_are_plain_decimals(text):
    value, rule = read_number(text)
    if rule is None:
        assert math.isfinite(value) and value == float(text.strip())
        assert text.strip().isascii() and "_" not in text
        assert not any(w in text.lower() for w in ("inf", "nan"))
    else:
        assert value is None and isinstance(rule, str)


# -- the command line ---------------------------------------------------------

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d5 2\n"
RUN = "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.5 r\nq2 Q0 d5 1 0.9 r\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "qrels").write_text(QRELS)
    (folder / "run").write_text(RUN)
    return str(folder / "qrels"), str(folder / "run")


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def check_cli(argv):
    status, out, err = run_cli(argv)
    if status == 0:
        assert err == "" and out
        return
    assert status == 2, (status, err)
    lines = err.splitlines()
    assert lines and lines[-1].startswith("skrank evaluate: error: "), err
    assert sum("error:" in line for line in lines) == 1, err
    assert "Traceback" not in err


CLI_VALUES = st.one_of(
    names,
    st.sampled_from(HOSTILE_NUMBERS),
    st.sampled_from(["-1", "-x", "--", "-m", "ndcg@10,map", "P.5,10", "ndcg@²"]),
)


@settings(fuzz, max_examples=max(EXAMPLES // 5, 20))
@given(
    option=st.sampled_from(["-m", "-l", "--digits", "--ties", "--queries"]),
    value=CLI_VALUES,
)
def test_command_line_errors_are_one_line(files, option, value):
    check_cli(["evaluate", *files, "-m", "map", option, value])


@pytest.mark.parametrize(
    "option, value",
    [
        ("-m", "ndcg@100000000000000000000"),
        ("-m", "ndcg@" + "9" * 5000),
        ("-m", "ndcg@²"),
        ("-m", "ndcg@١٠"),
        ("-m", "ndcg@10,map"),
        ("-m", "map(rel=1_0)"),
        ("-m", "ndcg" + " " * 3000 + "x"),
        ("-l", "inf"),
        ("-l", "nan"),
        ("-l", "1_0"),
        ("-l", "-" + "9" * 400),
        ("--digits", "-1"),
        ("--digits", "1" * 5000),
        ("--digits", "١"),
    ],
)
def test_hostile_command_line_values(files, option, value):
    check_cli(["evaluate", *files, option, value])
