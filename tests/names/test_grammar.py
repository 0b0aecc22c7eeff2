"""Metric names: the grammar, canonical spellings, aliases and suggestions."""

import pickle

import numpy as np
import pytest

import skrank
from skrank import evaluate, get_metric, get_metric_names
from skrank._validation import InvalidParameterError
from skrank.measures import MEASURES
from skrank.names import as_metric, parse_metrics


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("ndcg@10", "ndcg@10"),
        ("nDCG@10", "ndcg@10"),
        ("NDCG@10", "ndcg@10"),
        ("ndcg", "ndcg"),
        ("ndcg(gain=exponential)@10", "ndcg(gain=exponential)@10"),
        ("ndcg_burges@10", "ndcg(gain=exponential)@10"),
        ("dcg_burges@3", "dcg(gain=exponential)@3"),
        ("dcg(gain=linear)@3", "dcg@3"),
        ("dcg(log_base=10)", "dcg(log_base=10)"),
        ("P@5", "precision@5"),
        ("precision(rel=2)@5", "precision(rel=2)@5"),
        ("P(rel=2)@5", "precision(rel=2)@5"),
        ("P(relevance_level=2)@5", "precision(rel=2)@5"),
        ("R@100", "recall@100"),
        ("recall@100", "recall@100"),
        ("success@1", "hit_rate@1"),
        ("Success@1", "hit_rate@1"),
        ("hit_rate@3", "hit_rate@3"),
        ("hits@3", "hits@3"),
        ("f1@4", "f1@4"),
        ("Rprec", "r_precision"),
        ("r_precision", "r_precision"),
        ("RR@10", "mrr@10"),
        ("mrr", "mrr"),
        ("AP@100", "map@100"),
        ("MAP", "map"),
        ("Bpref", "bpref"),
        ("bpref(rel=2)", "bpref(rel=2)"),
        ("rbp", "rbp(p=0.8)"),
        ("rbp(p=0.8)", "rbp(p=0.8)"),
        ("RBP(p=0.8)", "rbp(p=0.8)"),
        ("rbp.8", "rbp(p=0.8)"),
        ("rbp.95", "rbp(p=0.95)"),
        ("rbp(p=0.95)@20", "rbp(p=0.95)@20"),
        (" ndcg ( gain = exponential ) @ 10 ", "ndcg(gain=exponential)@10"),
    ],
)
def test_names_parse_to_canonical_spelling(name, canonical):
    metric = get_metric(name)
    assert str(metric) == canonical
    # the canonical spelling is a fixed point, and equality goes by it
    assert str(get_metric(canonical)) == canonical
    assert get_metric(canonical) == metric
    assert hash(get_metric(canonical)) == hash(metric)


def test_rbp_at_8_is_a_cutoff_not_a_persistence():
    """ranx reads 'rbp@8' as p=0.8 by substring; here @8 is the cutoff."""
    metric = get_metric("rbp@8")
    assert metric.k == 8 and metric.params["p"] == 0.8
    assert str(metric) == "rbp(p=0.8)@8"
    assert get_metric("rbp@8") != get_metric("rbp.8")


def test_every_measure_round_trips_and_is_listed():
    names = get_metric_names()
    assert names == sorted(names)
    assert set(names) == {m.name for m in MEASURES}
    for m in MEASURES:
        for alias in (m.name, *m.aliases):
            if alias == m.trec_eval_family and alias != m.name:
                # a bare trec_eval family ("P", "success") is its default
                # cutoffs (trec_eval's m_P.c, m_success.c)
                specs = parse_metrics(alias, "caller")
                assert len(specs) > 1 and all(s.measure is m for s in specs)
            else:
                assert get_metric(alias).measure is m
            if m.cutoff:
                assert get_metric(f"{alias}@7").k == 7


def test_public_function_names_exist_for_every_measure():
    for m in MEASURES:
        assert callable(getattr(skrank, m.function))
        assert m.function in skrank.__all__


@pytest.mark.parametrize(
    "name, match",
    [
        ("ndgc@10", r"Unknown ranking metric 'ndgc@10'. Did you mean 'ndcg'"),
        ("precison@5", "Did you mean 'precision'"),
        ("mapp", "Did you mean 'map'"),
        ("zzz", "Unknown ranking metric .zzz.. Valid names: binary_g, bndcg, bpref"),
        ("ndcg@0", "cutoff .* must be a positive integer. Got '0'"),
        ("ndcg@-1", "cutoff .* positive integer"),
        ("ndcg@ten", "cutoff .* positive integer"),
        ("ndcg@1.5", "cutoff .* positive integer"),
        ("bpref@10", "takes no cutoff"),
        ("Rprec@5", "takes no cutoff"),
        ("ndcg(gain=cubic)", r"'gain' of metric 'ndcg' .* must be a str among"),
        ("ndcg(p=0.5)", "has no parameter 'p'"),
        ("rbp(p=1.5)", r"'p' of metric 'rbp' .* range \(0, 1\)"),
        ("rbp(p=abc)", "must be a number written with the digits 0-9 .*Got 'abc'"),
        ("rbp(p=nan)", "must be finite"),
        ("rbp(p=0.5,p=0.6)", "given twice"),
        ("precision(2)@5", "key=value"),
        ("dcg(log_base=1)", "'log_base' of metric 'dcg'"),
        ("ndcg.5", "only rbp take a parameter after a dot"),
        ("ndcg@@5", "positive integer"),
        ("nd cg", "Cannot parse metric name"),
        ("", "Cannot parse metric name"),
        (("ndcg",), "must be a str"),
        (None, "must be a str"),
    ],
)
def test_bad_names(name, match):
    with pytest.raises(ValueError, match=match):
        get_metric(name)


def test_metric_spec_pickles_and_reprs():
    metric = get_metric("P(rel=2)@5")
    assert pickle.loads(pickle.dumps(metric)) == metric
    assert repr(metric) == "MetricSpec('precision(rel=2)@5')"


def test_evaluate_keys_are_the_names_as_written_and_type_is_stable():
    y, s = [[1, 0, 2]], [[0.3, 0.2, 0.1]]
    one = skrank.evaluate(y, s, "nDCG@2")
    assert list(one) == ["nDCG@2"] and isinstance(one["nDCG@2"], float)
    many = skrank.evaluate(y, s, ["nDCG@2", "P@1", "rbp.9"])
    assert list(many) == ["nDCG@2", "P@1", "rbp.9"]
    assert many["nDCG@2"] == one["nDCG@2"]
    # one metric under two names: both keys, one value
    both = skrank.evaluate(y, s, ["ndcg@2", "nDCG@2"])
    assert list(both) == ["ndcg@2", "nDCG@2"]
    assert both["ndcg@2"] == both["nDCG@2"] == one["nDCG@2"]
    # a spec is keyed by its canonical name
    assert list(skrank.evaluate(y, s, get_metric("nDCG@2"))) == ["ndcg@2"]
    with pytest.raises(ValueError, match="at least one"):
        skrank.evaluate(y, s, [])
    with pytest.raises(ValueError, match="'metrics' parameter"):
        skrank.evaluate(y, s, 3)


def test_evaluate_relevance_level_default_and_name_precedence():
    y, s = [[2, 1, 0, 2]], [[0.9, 0.8, 0.7, 0.1]]
    res = skrank.evaluate(y, s, ["P@2", "P(rel=1)@2"], relevance_level=2)
    # P@2 with rel >= 2: [2, 1] -> 1 relevant of 2; P(rel=1)@2 keeps level 1
    assert res == {"P@2": 0.5, "P(rel=1)@2": 1.0}


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("ndcg_cut_10", ["ndcg@10"]),
        ("ndcg_cut.10", ["ndcg@10"]),
        ("P_5", ["precision@5"]),
        ("P.5,10", ["precision@5", "precision@10"]),
        ("recall_100", ["recall@100"]),
        ("map_cut_100", ["map@100"]),
        ("success_1", ["hit_rate@1"]),
        ("recip_rank", ["mrr"]),
        ("Rprec", ["r_precision"]),
        ("bpref", ["bpref"]),
        ("map", ["map"]),
        ("ndcg", ["ndcg"]),
    ],
)
def test_trec_eval_spellings(name, canonical):
    """trec_eval's measure names (its -m spelling) read as skrank's metrics."""
    from skrank.names import parse_metrics

    assert [str(m) for m in parse_metrics(name, "caller")] == canonical
    if len(canonical) == 1:
        assert str(get_metric(name)) == canonical[0]
    else:
        with pytest.raises(ValueError, match="names 2 metrics"):
            get_metric(name)


@pytest.mark.parametrize(
    "name, k",
    [
        ("ndcg@100000000000000000000", 10**20),
        ("ndcg_cut.99999999999999999999", 10**20 - 1),
        ("ndcg_cut_100000000000000000000", 10**20),
        ("P@9223372036854775808", 2**63),
        ("ndcg@" + "9" * 100, 10**100 - 1),
        ("ndcg@" + "0" * 5000 + "7", 7),
        ("ndcg@010", 10),
    ],
)
def test_large_cutoffs_are_kept_exactly(name, k):
    """A cutoff beyond a list stops at its end: any size up to 100 digits."""
    from skrank.names import parse_metrics

    metric = get_metric(name)
    assert metric.k == k and type(metric.k) is int
    assert str(metric).endswith(f"@{k}")
    assert get_metric(str(metric)) == metric
    assert parse_metrics(name, "caller") == [metric]


@pytest.mark.parametrize(
    "name",
    ["ndcg@" + "1" * 101, "ndcg@" + "9" * 5000, "ndcg_cut_" + "9" * 5000],
)
def test_cutoffs_of_more_than_100_digits_are_refused(name):
    digits = len(name) - len(name.rstrip("9").rstrip("1"))
    with pytest.raises(ValueError) as exc:
        get_metric(name)
    message = str(exc.value)
    assert "must have at most 100 digits (a cutoff beyond the length of a list" in (
        message
    )
    assert message.endswith(f"Got a cutoff of {digits} digits.")
    # the name is shortened in the message
    assert len(message) < 400 and f"({len(name)} characters)" in message


@pytest.mark.parametrize(
    "name, match",
    [
        (
            "ndcg@²",
            r"cutoff in metric name 'ndcg@²' must be a positive integer "
            r"written with the digits 0-9. Got '²' instead.",
        ),
        ("ndcg@١٠", "written with the digits 0-9. Got '١٠'"),
        ("ndcg@１０", "written with the digits 0-9. Got '１０'"),
        ("ndcg@1٠", "written with the digits 0-9. Got '1٠'"),
        ("ndcg_cut_١٠", "Cannot parse .* written with the digits 0-9; got '١'"),
        ("P.１", "Cannot parse .* written with the digits 0-9; got '１'"),
        ("rbp.９", "Cannot parse .* written with the digits 0-9; got '９'"),
        ("rbp(p=٠.٥)", r"'p' .* must be a number written with the digits 0-9"),
        ("map(rel=²)", r"'rel' .* must be a number written with the digits 0-9"),
        ("map(rel=1e²)", r"'rel' .* must be a number written with the digits 0-9"),
    ],
)
def test_only_ascii_digits(name, match):
    with pytest.raises(InvalidParameterError, match=match):
        get_metric(name)


@pytest.mark.parametrize(
    "text, rule",
    [
        ("1_0", "a number written with the digits 0-9"),
        ("0.000_1", "a number written with the digits 0-9"),
        ("0x10", "a number written with the digits 0-9"),
        ("1 0", "a number written with the digits 0-9"),
        ("1e", "a number written with the digits 0-9"),
        (".", "a number written with the digits 0-9"),
        ("--1", "a number written with the digits 0-9"),
        ("", "a number written with the digits 0-9"),
        ("nan", "finite"),
        ("-NaN", "finite"),
        ("inf", "finite"),
        ("+Infinity", "finite"),
        ("1e400", "finite"),
        ("-1" + "0" * 40 + "e300", "finite"),
    ],
)
def test_number_spellings_refused(text, rule):
    with pytest.raises(InvalidParameterError) as exc:
        get_metric(f"map(rel={text})")
    assert f"'rel' in metric name 'map(rel={text})' must be {rule}" in str(exc.value)
    assert f"Got {text!r} instead." in str(exc.value)


@pytest.mark.parametrize(
    "text, value, canonical",
    [
        ("2", 2.0, "map(rel=2)"),
        ("+1", 1.0, "map(rel=1)"),
        ("-1", -1.0, "map(rel=-1)"),
        ("-0", 0.0, "map(rel=0)"),
        (".5", 0.5, "map(rel=0.5)"),
        ("5.", 5.0, "map(rel=5)"),
        ("1e3", 1000.0, "map(rel=1000)"),
        (" 1E-3 ", 0.001, "map(rel=0.001)"),
        ("1e-5", 1e-5, "map(rel=1e-05)"),
        ("1e+300", 1e300, "map(rel=1e+300)"),
        (
            "12345678901234567890",
            1.2345678901234567e19,
            "map(rel=1.2345678901234567e+19)",
        ),
        ("0" * 5000 + "3", 3.0, "map(rel=3)"),
        ("1e-400", 0.0, "map(rel=0)"),
    ],
)
def test_number_spellings_accepted(text, value, canonical):
    metric = get_metric(f"map(rel={text})")
    assert metric.params["relevance_level"] == value
    assert str(metric) == canonical
    assert get_metric(canonical) == metric


def test_values_in_names_and_messages_are_plain():
    import numpy as np

    from skrank.names import parse_metrics

    spec = get_metric("P@2").with_defaults(relevance_level=np.float64(2.5))
    assert str(spec) == "precision(rel=2.5)@2"
    spec = get_metric("P@2").with_defaults(relevance_level=np.int64(2))
    assert str(spec) == "precision(rel=2)@2"
    with pytest.raises(ValueError) as exc:
        get_metric(np.int64(3))
    assert str(exc.value) == "A metric name must be a str. Got 3 of type int64."
    with pytest.raises(ValueError) as exc:
        parse_metrics(np.float64(3.5), "evaluate")
    assert str(exc.value).endswith("list of them. Got 3.5 instead.")
    with pytest.raises(ValueError, match=r"Got True of type bool_?\.$"):
        get_metric(np.bool_(True))
    with pytest.raises(ValueError, match=r"\(0, 1\)\. Got 1 instead\.$"):
        get_metric("rbp(p=1.0)")
    with pytest.raises(ValueError, match=r"Got 'cubic' instead\.$"):
        get_metric("ndcg(gain=cubic)")


@pytest.mark.parametrize(
    "name, parts",
    [
        ("ndcg@10,map", ["ndcg@10", "map"]),
        (
            "ndcg(gain=exponential)@10, P(rel=2)@5",
            ["ndcg(gain=exponential)@10", "P(rel=2)@5"],
        ),
        ("map,P.5", ["map", "P.5"]),
    ],
)
def test_several_names_in_one_string(name, parts):
    from skrank.names import parse_metrics, split_names

    assert split_names(name) == parts
    listed = ", ".join(repr(p) for p in parts)
    message = (
        f"{name!r} names {len(parts)} metrics; a metric name names one. Give "
        f"them as a list of names: [{listed}]."
    )
    with pytest.raises(InvalidParameterError) as exc:
        get_metric(name)
    assert str(exc.value) == message
    with pytest.raises(InvalidParameterError) as exc:
        parse_metrics(name, "evaluate")
    assert str(exc.value) == message
    assert [str(m) for m in parse_metrics(parts, "evaluate")] == [
        str(get_metric(p)) for p in parts
    ]


def test_a_comma_joined_name_with_a_bad_part_reports_the_parse_error():
    with pytest.raises(InvalidParameterError, match="cutoff .* Got '10,mapp'"):
        get_metric("ndcg@10,mapp")


def test_a_failing_match_takes_linear_time():
    """Adjacent optional whitespace once made a failing match cubic."""
    import time

    for name in ("ndcg" + " " * 1500 + "x", "ndcg(" + " " * 1500, "x" * 1500 + "!"):
        start = time.perf_counter()
        with pytest.raises(InvalidParameterError, match="Cannot parse"):
            get_metric(name)
        assert time.perf_counter() - start < 0.5


# -- each tool's choices in names ---------------------------------------------


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("map(denominator=min_r_k)@10", "map(denominator=min_r_k)@10"),
        ("AP(denominator=hits)@5", "map(denominator=hits)@5"),
        ("map(denominator=R)@5", "map@5"),  # the default is not shown
        ("P(denominator=retrieved)@10", "precision(denominator=retrieved)@10"),
        ("P(rel=2,denominator=k)@10", "precision(rel=2)@10"),
        ("ndcg(gain=[0,1,3])@10", "ndcg(gain=[0,1,3])@10"),
        ("ndcg(gain=[0, 1.0, 3e0 ])@10", "ndcg(gain=[0,1,3])@10"),
        ("ndcg(gain={0:0,2:3.5,1:1})@10", "ndcg(gain=[0,1,3.5])@10"),
        ("dcg(gain=[0,1],log_base=10)", "dcg(gain=[0,1],log_base=10)"),
    ],
)
def test_tool_choices_parse_and_render_canonically(name, canonical):
    spec = get_metric(name)
    assert spec.name == canonical
    assert get_metric(canonical) == spec  # the canonical name parses back
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_gain_table_is_kept_as_a_tuple_of_floats():
    spec = get_metric("ndcg(gain={0:0,1:2})@3")
    assert spec.params["gain"] == (0.0, 2.0) and spec.explicit("gain")
    assert as_metric("ndcg", 3, gain=[0, 2]) == spec


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "map(denominator=foo)@5",
            r"'denominator' of metric 'map'.*\{'R', "
            r"'min_r_k', 'hits', 'k'\}. Got 'foo'",
        ),
        (
            "P(denominator=R)@5",
            r"'denominator' of metric 'precision'.*\{'k', "
            r"'retrieved'\}. Got 'R'",
        ),
        ("ndcg(gain=[0,1,x])", r"'gain' in metric name.*must be a table"),
        ("ndcg(gain=[0,1)", r"must be a table.*ends with"),
        ("ndcg(gain={0:0,0:1})", r"grade 0 is given twice"),
        ("ndcg(gain={a:1})", r"grade:number"),
        ("ndcg(gain=[1,2])", r"'gain' of metric 'ndcg'.*gain table.*Got \[1, 2\]"),
        ("ndcg(gain=[0,2,1])", r"never decrease.*Got \[0, 2, 1\]"),
        ("P(rel=[1,2])", r"'rel' of metric 'precision'.*Got \[1, 2\]"),
        ("rbp(denominator=k)", r"no parameter 'denominator'"),
    ],
)
def test_tool_choices_errors(name, message):
    with pytest.raises(ValueError, match=message):
        get_metric(name)


# --------------------------------------------------------------------------
# XGBoost's trailing "-"
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, canonical, k",
    [
        ("ndcg@10-", "ndcg@10-", 10),
        ("nDCG@10 -", "ndcg@10-", 10),
        ("map@5-", "map@5-", 5),
        ("map-", "map-", None),
        ("ndcg(gain=exponential)@3-", "ndcg(gain=exponential)@3-", 3),
    ],
)
def test_xgboost_minus_parses_and_renders(name, canonical, k):
    spec = get_metric(name)
    assert spec.name == canonical and spec.k == k and spec.zero_undefined
    assert spec != get_metric(canonical[:-1])  # another metric than without "-"
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and again.zero_undefined
    assert spec.with_defaults(gain="exponential").zero_undefined


def test_xgboost_minus_refused_where_no_query_is_undefined():
    # precision is defined for a query without relevant items (it is 0)
    with pytest.raises(ValueError, match=r"trailing '-'.*'precision' is defined"):
        get_metric("P@5-")
    with pytest.raises(ValueError, match="Cannot parse metric name '-'"):
        get_metric("-")


def test_xgboost_minus_scores_such_queries_zero_everywhere():
    # query 0 ranks its one relevant item first (nDCG@2 = 1); query 1 has
    # none: replace_undefined_by=1 makes it 1 for ndcg@2, "-" makes it 0
    y = [[1, 0], [0, 0]]
    s = [[0.9, 0.1], [0.5, 0.4]]
    got = evaluate(y, s, ["ndcg@2", "ndcg@2-"], replace_undefined_by=1.0)
    assert got == {"ndcg@2": 1.0, "ndcg@2-": 0.5}
    got = evaluate(y, s, "ndcg@2-", replace_undefined_by=np.nan, average=None)
    np.testing.assert_array_equal(got["ndcg@2-"], [1.0, 0.0])
    # scorers and TREC runs read the same names
    from sklearn.linear_model import LinearRegression

    from skrank import make_ranking_scorer
    from skrank.trec import evaluate_run

    X = np.array([[0.9], [0.1], [0.5], [0.4]])
    model = LinearRegression().fit(X, X[:, 0])  # scores: the feature itself
    qid = np.array([0, 0, 1, 1])
    y_rows = np.array([1, 0, 0, 0])
    for name, value in (("ndcg@2", 1.0), ("ndcg@2-", 0.5)):
        scorer = make_ranking_scorer(name, replace_undefined_by=1.0)
        assert scorer(model, X, y_rows, qid=qid) == pytest.approx(value, rel=1e-12)

    qrels = {"q1": {"d1": 1}, "q2": {"d3": 0}}
    run = {"q1": {"d1": 0.9, "d2": 0.1}, "q2": {"d3": 0.5, "d4": 0.4}}
    got = evaluate_run(qrels, run, ["ndcg@2", "ndcg@2-"], replace_undefined_by=1.0)
    assert got == {"ndcg@2": 1.0, "ndcg@2-": 0.5}
