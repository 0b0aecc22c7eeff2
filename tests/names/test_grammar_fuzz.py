"""Fuzzing the metric-name grammar and the command line's options.

Arbitrary text (metric names and aliases with random mutations, Unicode
digits, huge numbers, underscores, parentheses, commas, dots, ``@``,
whitespace) goes through :func:`skrank.names.get_metric` and
:func:`skrank.names.parse_metrics`: the only exception allowed is
skrank's ``InvalidParameterError``, with a one-line message, and whatever
parses round-trips through its canonical spelling. A few hostile ``-m``,
``-l`` and ``--digits`` values go through the command line in-process.
trec_eval's dotted forms (``P.5,10``, ``ndcg.1=3.5,2=9``,
``utility.1,-1,0,0``) and ir_measures' keyword forms (``P(rel=2)@5``,
``RBP(p=0.8)``) get huge numbers in every slot: each parses, computes finite
values and round-trips, or is refused by a message naming the rule, in
bounded memory (tracemalloc).

The suite runs a small, fixed (derandomized) number of examples. A longer,
random search::

    SKRANK_FUZZ_EXAMPLES=20000 python -m pytest tests/names/test_grammar_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import skrank
from skrank._cli import main
from skrank._validation import (
    MAX_CUTOFF_DIGITS,
    MAX_GAIN_GRADE,
    Interval,
    InvalidParameterError,  # noqa: E402
)
from skrank.measures import MEASURES  # noqa: E402
from skrank.names import (  # noqa: E402
    get_metric,
    parse_metrics,
    read_metrics,
    read_number,
)
from skrank.names.catalogue import _ALIASES  # noqa: E402

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
            params[param.keyword] = (
                value if param.kind is str else param.kind(value)
            )  # an int written in digits is read exactly
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


# -- trec_eval's dotted forms, ir_measures' keyword forms, huge numbers -------

# Numbers in every slot: past int64 (2**63, 2**64), past a float's exact
# integers (10**30), at a float's edge (1e308, the largest float), an
# 11-digit grade (99999999999, which once built a gain table of 10**11
# entries), ordinary ones, and any integer or finite float.
HUGE = [
    "9223372036854775808", "18446744073709551616", "1" + "0" * 30, "1e308",
    "1.7976931348623157e308", "99999999999", "1024", "2" + "0" * 100,
]  # fmt: skip
PLAIN = ["0", "1", "2", "-1", "0.5", "3.5", "5", "10", "0.8", "1023"]
slot = st.one_of(
    st.sampled_from(HUGE),
    st.sampled_from(PLAIN),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
# "{}" is a slot; trec_eval's spellings (m_*.c: P.5,10, gain pairs, the four
# weights of utility) and ir_measures' (keyword parameters, quoted strings)
TEMPLATES = [
    "P.{},{}", "P_{}", "P.{}", "recall.{},{}", "map_cut.{}", "ndcg_cut.{},{}",
    "ndcg_cut_{}", "success.{}", "relative_P.{}", "Rprec_mult.{},{}",
    "iprec_at_recall.{}", "set_F.{}", "utility.{},{},{},{}", "ndcg.{}={},{}={}",
    "ndcg_rel.{}={}", "Rndcg.{}={}", "G.{}={}", "rbp.p={}", "rbp_resid.p={}",
    'nDCG(dcg="exp-log2")@{}', "nDCG(dcg='log2')@{}", "P(rel={})@{}", "RBP(p={})",
    "RBP(p={},rel={})@{}", "AP(rel={})@{}", "R(rel={})@{}", "Success(rel={})@{}",
    "ERR@{}", "Judged@{}", "IPrec@{}", "Rprec(rel={})", "NumRet(rel={})",
    "ndcg(gain={{0:0,{}:{}}})@{}", "ndcg(gain=[0,{},{}])@{}", "utility(N={})",
    "err(max_grade={})@{}", "map@{}-l{}", "rbp.{}", "ndcg@{}",
]  # fmt: skip


@st.composite
def numeric_names(draw):
    """A dotted or keyword form with a number drawn for every slot."""
    template = draw(st.sampled_from(TEMPLATES))
    return template.format(*(draw(slot) for _ in range(template.count("{}"))))


# a message that refuses a name names the rule it breaks (a range, a limit,
# a spelling), or says which part of the name it cannot read
RULES = re.compile(
    r"must (be|have)|at most|covers|takes|Cannot parse|Unknown|has no|given twice"
)
# what one name may take, well above what any needs (a gain table of 1,024
# entries and its canonical name are about 0.1 MB)
NAME_MEMORY = 4 << 20
# a run of the command line reads its files in chunks of a few MB
CLI_MEMORY = 32 << 20
Y = np.array([[3, 0, 1, 2, 0], [0, 1, 0, 0, 2]])
S = np.array([[0.9, 0.8, 0.7, 0.6, 0.5], [0.5, 0.4, 0.3, 0.2, 0.1]])


def bounded(func, *args, memory=NAME_MEMORY, **kwargs):
    """``func(...)``, its peak of traced memory checked."""
    tracemalloc.start()
    try:
        return func(*args, **kwargs)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < memory, peak


@fuzz
@given(numeric_names())
def test_numbers_in_every_slot_parse_or_name_the_rule(name):
    try:
        pairs = bounded(read_metrics, [name], "fuzz", trec_eval=True)
    except InvalidParameterError as exc:
        check_error(exc)
        assert RULES.search(str(exc)), str(exc)
        return
    assert pairs
    for _, spec in pairs:
        check_round_trip(spec)
        assert spec.k is None or spec.k < 10**MAX_CUTOFF_DIGITS
        gain = spec.params.get("gain")
        assert not isinstance(gain, tuple) or len(gain) <= MAX_GAIN_GRADE + 1
    # what parses computes: a value per query in the metric's declared
    # range, or skrank's own error
    try:
        results = bounded(skrank.evaluate, Y, S, [name], ties="first", average=None)
    except InvalidParameterError as exc:
        check_error(exc)
        return
    check_values(pairs, results)


def check_values(pairs, results):
    for key, spec in pairs:
        values = results[key]
        assert np.isfinite(values).all(), (key, values)
        if spec.measure.lower is not None:
            assert (values >= spec.measure.lower - 1e-12).all(), (key, values)
        if spec.measure.upper is not None:
            assert (values <= spec.measure.upper + 1e-12).all(), (key, values)


@settings(fuzz, max_examples=max(EXAMPLES // 5, 20))
@given(numeric_names())
def test_numbers_in_every_slot_on_the_command_line(files, name):
    status, out, err = bounded(
        run_cli, ["evaluate", *files, "-m", name], memory=CLI_MEMORY
    )
    assert "Traceback" not in err and "internal error" not in err, err
    check_cli(["evaluate", *files, "-m", name])


@pytest.mark.parametrize(
    "name, message",
    [
        ("ndcg.99999999999=1", "covers at most the grades 0 .. 1023"),
        ("ndcg_rel.99999999999=1", "covers at most the grades 0 .. 1023"),
        ("Rndcg.1024=2", "grade '1024'; a gain table covers at most"),
        ("ndcg.1=3.5," + "9" * 5000 + "=9", r"grade '9{60}'\.\.\. \(5000 characters\)"),
        ("ndcg(gain={0:0,99999999999:1})", "covers at most the grades 0 .. 1023"),
        ("ndcg@1" + "0" * 100, "at most 100 digits"),
        ("P." + "9" * 101, "at most 100 digits"),
        ("RBP(p=1e308)", r"must be a finite float in the range \(0, 1\)"),
        ("err(max_grade=99999999999)", r"must be an int in the range \[1, 1023\]"),
    ],
)
def test_limits_of_names_are_named(name, message):
    with pytest.raises(InvalidParameterError, match=message):
        bounded(read_metrics, [name], "fuzz", trec_eval=True)


@pytest.mark.parametrize(
    "name",
    [
        # past every list: the cutoff reads the whole list
        "ndcg_cut.99999999999",
        "P.9223372036854775808",
        'nDCG(dcg="exp-log2")@1' + "0" * 30,
        "Rprec_mult.9223372036854775808",
        # the largest grade a gain table covers: 1,024 gains
        "Rndcg.1023=2000",
    ],
)
def test_huge_numbers_that_parse_stay_small(name):
    pairs = bounded(read_metrics, [name], "fuzz", trec_eval=True)
    for _, spec in pairs:
        check_round_trip(spec)
    results = bounded(skrank.evaluate, Y, S, [name], ties="first", average=None)
    check_values(pairs, results)
