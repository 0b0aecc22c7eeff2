"""Other tools' metric names: what each spelling means, the keys of the
results, and the same per-query values as the tools themselves.

Expected meanings come from the tools' sources: trec_eval 10 (measures.c and
m_*.c: its families' default cutoffs, its measure sets, its output names),
ir_measures (its measure names and parameter syntax) and ranx
(``ranx/meta/evaluate.py``: ``-lN`` is the relevance level). Values are
compared with ir_measures and pytrec_eval, run in the test, on a synthetic
run and on trec_eval's own test files when they are present.
"""

from __future__ import annotations

from pathlib import Path

import ir_measures
import numpy as np
import pytest
import pytrec_eval

import skrank
from skrank import get_metric
from skrank._validation import InvalidParameterError
from skrank.names import (
    TREC_EVAL_SETS,
    parse_metrics,
    read_metrics,
    trec_eval_name,
    trec_eval_set_missing,
)
from skrank.trec import evaluate_run

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec_eval"

# trec_eval 10, m_P.c (and m_recall.c, m_map_cut.c, m_ndcg_cut.c)
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
LEVELS = tuple(f"{i / 10:.2f}" for i in range(11))  # m_iprec_at_recall.c

# -- what each spelling parses to --------------------------------------------

# (name, [(key, canonical name), ...]) read by skrank.evaluate (skrank's own
# dialect: a bare "recall" is skrank's recall of the whole list)
SPELLINGS = [
    # ir_measures
    ("nDCG@10", [("nDCG@10", "ndcg@10")]),
    ("P(rel=2)@5", [("P(rel=2)@5", "precision(rel=2)@5")]),
    ("AP", [("AP", "map")]),
    ("AP@10", [("AP@10", "map@10")]),
    ("RR", [("RR", "mrr")]),
    ("R@100", [("R@100", "recall@100")]),
    ("SetP", [("SetP", "set_precision")]),
    ("SetR", [("SetR", "set_recall")]),
    ("SetF(beta=0.5)", [("SetF(beta=0.5)", "set_f(beta=0.5)")]),
    ("Judged@10", [("Judged@10", "judged(denominator=retrieved)@10")]),
    ("nDCG(dcg='exp-log2')", [("nDCG(dcg='exp-log2')", "ndcg(gain=exponential)")]),
    (
        'nDCG(dcg="exp-log2")@10',
        [('nDCG(dcg="exp-log2")@10', "ndcg(gain=exponential)@10")],
    ),
    ("nDCG(dcg='log2')@10", [("nDCG(dcg='log2')@10", "ndcg@10")]),
    (
        "nDCG(gains={0:0,1:1,2:3})@10",
        [("nDCG(gains={0:0,1:1,2:3})@10", "ndcg(gain=[0,1,3])@10")],
    ),
    ("ERR@20", [("ERR@20", "err@20")]),
    ("infAP", [("infAP", "infap")]),
    ("NumRet", [("NumRet", "num_ret")]),
    ("NumRet(rel=1)", [("NumRet(rel=1)", "num_rel_ret(rel=1)")]),
    ("NumRelRet", [("NumRelRet", "num_rel_ret")]),
    ("NumRel", [("NumRel", "num_rel")]),
    ("NumQ", [("NumQ", "num_q")]),
    ("IPrec@0.5", [("IPrec@0.5", "iprec_at_recall(level=0.5)")]),
    ("Rprec", [("Rprec", "r_precision")]),
    ("RPrec", [("RPrec", "r_precision")]),
    ("Bpref", [("Bpref", "bpref")]),
    ("BPref", [("BPref", "bpref")]),
    ("Success@10", [("Success@10", "hit_rate@10")]),
    ("MRR", [("MRR", "mrr")]),
    ("MAP", [("MAP", "map")]),
    ("Precision@5", [("Precision@5", "precision@5")]),
    ("RBP(p=0.9)", [("RBP(p=0.9)", "rbp(p=0.9)")]),
    # ranx
    ("r-precision", [("r-precision", "r_precision")]),
    ("r-precision-l2", [("r-precision-l2", "r_precision(rel=2)")]),
    ("rbp.95", [("rbp.95", "rbp(p=0.95)")]),
    ("rbp.95-l2", [("rbp.95-l2", "rbp(p=0.95,rel=2)")]),
    ("map@10-l2", [("map@10-l2", "map(rel=2)@10")]),
    ("precision@5-l3", [("precision@5-l3", "precision(rel=3)@5")]),
    ("ndcg_burges@10", [("ndcg_burges@10", "ndcg(gain=exponential)@10")]),
    ("dcg_burges", [("dcg_burges", "dcg(gain=exponential)")]),
    ("hit_rate@5", [("hit_rate@5", "hit_rate@5")]),
    ("mrr@10", [("mrr@10", "mrr@10")]),
    ("f1@10", [("f1@10", "f1@10")]),
    ("hits@10", [("hits@10", "hits@10")]),
    # trec_eval: a family with cutoffs as written; "." gives its printed names
    ("P_5", [("P_5", "precision@5")]),
    ("P.5", [("P_5", "precision@5")]),
    ("P.5,10", [("P_5", "precision@5"), ("P_10", "precision@10")]),
    ("ndcg_cut_10", [("ndcg_cut_10", "ndcg@10")]),
    ("ndcg_cut.10,20", [("ndcg_cut_10", "ndcg@10"), ("ndcg_cut_20", "ndcg@20")]),
    ("map_cut_100", [("map_cut_100", "map@100")]),
    ("recall_100", [("recall_100", "recall@100")]),
    ("success_1", [("success_1", "hit_rate@1")]),
    ("iprec_at_recall_0.10", [("iprec_at_recall_0.10", "iprec_at_recall(level=0.1)")]),
    (
        "iprec_at_recall.0.5,1",
        [
            ("iprec_at_recall_0.50", "iprec_at_recall(level=0.5)"),
            ("iprec_at_recall_1.00", "iprec_at_recall(level=1)"),
        ],
    ),
    ("recip_rank", [("recip_rank", "mrr")]),
    ("set_P", [("set_P", "set_precision")]),
    ("set_F", [("set_F", "set_f")]),
    ("11pt_avg", [("11pt_avg", "iprec_11pt_avg")]),
    ("num_rel_ret", [("num_rel_ret", "num_rel_ret")]),
    ("gm_map", [("gm_map", "gm_map")]),
    # trec_eval 10's measures read by the skrank metric of each definition
    ("relative_P_5", [("relative_P_5", "relative_precision@5")]),
    (
        "relative_P.5,10",
        [
            ("relative_P_5", "relative_precision@5"),
            ("relative_P_10", "relative_precision@10"),
        ],
    ),
    ("set_relative_P", [("set_relative_P", "set_relative_precision")]),
    (
        "Rprec_mult.0.5,2",
        [
            ("Rprec_mult_0.50", "r_precision_mult(multiple=0.5)"),
            ("Rprec_mult_2.00", "r_precision_mult(multiple=2)"),
        ],
    ),
    ("utility", [("utility", "utility")]),
    ("set_map", [("set_map", "set_map")]),
    ("num_nonrel_judged_ret", [("num_nonrel_judged_ret", "num_nonrel_judged_ret")]),
    ("unj_10", [("unj_10", "unjudged_rate@10")]),
    ("binG", [("binG", "binary_g")]),
    ("G", [("G", "normalized_gain")]),
    ("ndcg_rel", [("ndcg_rel", "ndcg_rel")]),
    ("Rndcg", [("Rndcg", "r_ndcg")]),
    # trec_eval's parameters after a dot (meas_init.c: get_double_params,
    # get_param_pairs), keyed as trec_eval prints them (the text as written)
    ("set_F.0.5", [("set_F_0.5", "set_f(beta=0.5)")]),
    (
        "utility.2,-0.5,0,0",
        [("utility_2,-0.5,0,0", "utility(rel_ret=2,nonrel_ret=-0.5)")],
    ),
    ("utility.1,-1,0,0", [("utility_1,-1,0,0", "utility")]),
    ("rbp.p=0.95", [("rbp_p=0.95", "rbp(p=0.95,gain=graded)")]),
    ("rbp_resid.p=0.5", [("rbp_resid_p=0.5", "rbp_resid(p=0.5)")]),
    # grade=gain pairs: a gain table, a grade not given keeping its grade
    ("ndcg.2=5", [("ndcg_2=5", "ndcg(gain=[0,1,5])")]),
    ("ndcg.1=3.5,2=9.0", [("ndcg_1=3.5,2=9.0", "ndcg(gain=[0,3.5,9])")]),
    ("ndcg_rel.2=5", [("ndcg_rel_2=5", "ndcg_rel(gain=[0,1,5])")]),
    ("Rndcg.1=3,2=3", [("Rndcg_1=3,2=3", "r_ndcg(gain=[0,3,3])")]),
    ("G.1=2", [("G_1=2", "normalized_gain(gain=[0,2])")]),
    # ranx's rbp.95 keeps its meaning: p = 0.95, binary gains
    ("rbp.95", [("rbp.95", "rbp(p=0.95)")]),
    # bare trec_eval families: its default cutoffs, under its names
    ("P", [(f"P_{k}", f"precision@{k}") for k in CUTS]),
    ("ndcg_cut", [(f"ndcg_cut_{k}", f"ndcg@{k}") for k in CUTS]),
    ("map_cut", [(f"map_cut_{k}", f"map@{k}") for k in CUTS]),
    ("success", [(f"success_{k}", f"hit_rate@{k}") for k in (1, 5, 10)]),
    ("relative_P", [(f"relative_P_{k}", f"relative_precision@{k}") for k in CUTS]),
    ("unj", [(f"unj_{k}", f"unjudged_rate@{k}") for k in (5, 10, 20)]),
    (
        "Rprec_mult",
        [
            (f"Rprec_mult_{x / 10:.2f}", f"r_precision_mult(multiple={x / 10:g})")
            for x in range(2, 21, 2)
        ],
    ),
    # skrank's own names keep their meaning
    ("precision", [("precision", "precision")]),
    ("recall", [("recall", "recall")]),
    ("iprec_at_recall", [("iprec_at_recall", "iprec_at_recall(level=0)")]),
    ("hit_rate", [("hit_rate", "hit_rate")]),
]

# where the caller speaks trec_eval (evaluate_run, the command line, a set)
TREC_SPELLINGS = [
    ("recall", [(f"recall_{k}", f"recall@{k}") for k in CUTS]),
    (
        "iprec_at_recall",
        [
            (f"iprec_at_recall_{v}", f"iprec_at_recall(level={float(v):g})")
            for v in LEVELS
        ],
    ),
    ("P", [(f"P_{k}", f"precision@{k}") for k in CUTS]),
    ("runid", []),
    # trec_eval's rbp (m_rbp.c: p = 0.9, gains graded), rbp_resid (p = 0.9)
    ("rbp", [("rbp", "rbp(p=0.9,gain=graded)")]),
    ("rbp_resid", [("rbp_resid", "rbp_resid(p=0.9)")]),
]


def _pairs(name, **kw):
    return [(key, spec.name) for key, spec in read_metrics(name, "test", **kw)]


@pytest.mark.parametrize("name, expected", SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_every_spelling_parses_to_the_intended_metric(name, expected):
    assert _pairs(name) == expected
    # the same in a list, and where the caller speaks trec_eval, unless the
    # name is a trec_eval family that is also skrank's own name
    assert _pairs([name]) == expected
    if name not in ("recall", "iprec_at_recall"):
        assert _pairs([name], trec_eval=True) == expected
    # every canonical name is reachable under its own name
    for _, canonical in expected:
        assert get_metric(canonical).name == canonical


@pytest.mark.parametrize(
    "name, expected", TREC_SPELLINGS, ids=[s[0] for s in TREC_SPELLINGS]
)
def test_trec_eval_dialect(name, expected):
    pairs = [] if name == "runid" else _pairs([name, "map"], trec_eval=True)[:-1]
    assert pairs == expected
    # a set of names (pytrec_eval's measure set) speaks trec_eval too
    if name != "runid":
        assert dict(_pairs({name})) == dict(expected)


def test_measure_sets_are_trec_eval_s_limited_to_skrank_s_metrics():
    # trec_eval 10 measures.c: off_names, trec_names, set_names
    official = _pairs("official", trec_eval=True)
    assert [k for k, _ in official] == [
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        *(f"iprec_at_recall_{v}" for v in LEVELS),
        *(f"P_{k}" for k in CUTS),
    ]
    assert trec_eval_set_missing("official") == []
    all_trec = dict(_pairs("all_trec", trec_eval=True))
    # trec_eval's rbp is p = 0.9 with graded gains (m_rbp.c)
    assert all_trec["rbp"] == "rbp(p=0.9,gain=graded)"
    assert all_trec["rbp_resid"] == "rbp_resid(p=0.9)"
    assert all_trec["set_F"] == "set_f" and all_trec["ndcg_cut_1000"] == "ndcg@1000"
    missing = trec_eval_set_missing("all_trec")
    assert set(missing) <= set(TREC_EVAL_SETS["all_trec"])
    assert not set(missing) & set(all_trec)
    # relstring is a string (the grades of the top 10), not a number
    assert missing == ["relstring"]
    assert trec_eval_set_missing("set") == []
    assert [k for k, _ in _pairs("set", trec_eval=True)] == [
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ]
    for key, name in [
        ("utility", "utility"),
        ("binG", "binary_g"),
        ("G", "normalized_gain"),
        ("ndcg_rel", "ndcg_rel"),
        ("Rndcg", "r_ndcg"),
        ("set_relative_P", "set_relative_precision"),
        ("set_map", "set_map"),
        ("num_nonrel_judged_ret", "num_nonrel_judged_ret"),
        ("relative_P_1000", "relative_precision@1000"),
        ("Rprec_mult_0.20", "r_precision_mult(multiple=0.2)"),
        ("unj_20", "unjudged_rate@20"),
    ]:
        assert all_trec[key] == name
    # outside trec_eval's dialect a measure set is no metric name
    with pytest.raises(InvalidParameterError, match="Unknown ranking metric"):
        read_metrics("official", "test")


def test_trec_eval_output_names():
    cases = {
        "P@5": "P_5",
        "ndcg@10": "ndcg_cut_10",
        "map@100": "map_cut_100",
        "hit_rate@1": "success_1",
        "mrr": "recip_rank",
        "r_precision": "Rprec",
        "iprec_at_recall(level=0.1)": "iprec_at_recall_0.10",
        "rbp(p=0.9,gain=graded)": "rbp",
        "ndcg": "ndcg",
        "set_f": "set_F",
        "relative_precision@5": "relative_P_5",
        "r_precision_mult(multiple=0.2)": "Rprec_mult_0.20",
        "unjudged_rate@10": "unj_10",
        "utility": "utility",
        "binary_g": "binG",
        "normalized_gain": "G",
        "r_ndcg": "Rndcg",
        "set_relative_precision": "set_relative_P",
        # no trec_eval measure of these: its name would claim its definition
        "precision": None,
        "recall": None,
        "P(rel=2)@5": None,
        "rbp": None,
        "ndcg(gain=exponential)@10": None,
    }
    for name, expected in cases.items():
        assert trec_eval_name(get_metric(name)) == expected, name


@pytest.mark.parametrize(
    "name, message",
    [
        ("P", r"'P' names 9 metrics \(P_5, .*\).* Precision of the whole list is "),
        ("ndcg@10-l2", r"Metric 'ndcg' takes no relevance level; got 'ndcg@10-l2'"),
        ("P(rel=2)@5-l2", r"relevance level is given twice"),
        (
            "nDCG(dcg='exp-log3')",
            r"Parameter 'dcg' .* must be one of 'log2', 'exp-log2'",
        ),
        ("P(rel='2')@5", r"Parameter 'rel' .* takes a number, written without quotes"),
        ("AP(judged_only=True)", r"Metric 'map' has no parameter 'judged_only'"),
        ("IPrec@1.5", r"Parameter 'level' of metric 'iprec_at_recall'"),
        (
            "r-precison",
            r"Unknown ranking metric 'r-precison'. Did you mean 'r_precision'",
        ),
        # trec_eval's parameters after a dot
        ("utility.1,2", r"utility takes 4 values after the dot .*got 2"),
        ("set_F.0.5,2", r"set_F takes 1 value after the dot \(beta\); got 2"),
        ("set_F.x", r"Parameter 'beta' in metric name 'set_F.x' must be a number"),
        ("set_F.-1", r"Parameter 'beta' of metric 'set_f' .* Got -1 instead"),
        ("rbp.p=0.9,2=1.5", r"gains by grade, such as 2=1.5, are not read"),
        ("rbp.p=1.5", r"Parameter 'p' of metric 'rbp'"),
        # skrank's gain tables start at 0 and never decrease
        ("ndcg.0=1", r"Parameter 'gain' of metric 'ndcg' .* start at 0"),
        ("ndcg.x=1", r"grade=gain pairs after the dot"),
        ("ndcg.1=y", r"a gain a number written with the digits"),
    ],
)
def test_errors_name_the_rule_and_the_value(name, message):
    with pytest.raises(InvalidParameterError, match=message):
        get_metric(name)


# -- keys ---------------------------------------------------------------------

Y = [[0, 1, 0, 1, 0], [2, 0, 1, 0, 0]]
S = [[3, 2, 2, 2, 1], [0.9, 0.8, 0.7, 0.1, 0.1]]


def test_results_are_keyed_by_the_names_as_written():
    res = skrank.evaluate(Y, S, ["P@2", "precision@2", "nDCG@3", "r-precision"])
    assert list(res) == ["P@2", "precision@2", "nDCG@3", "r-precision"]
    # one metric under two names: computed once, the same value
    # (hand: query 1 ties 3 items with 2 relevant at ranks 2-4: 1/3; query 2: 1/2)
    assert res["P@2"] == res["precision@2"] == pytest.approx((1 / 3 + 1 / 2) / 2)
    per_query = skrank.evaluate(Y, S, ["P@2", "precision@2"], average=None)
    assert list(per_query) == ["P@2", "precision@2"]
    np.testing.assert_allclose(per_query["P@2"], [1 / 3, 1 / 2])
    # a bare family: trec_eval's names of its cutoffs
    fam = skrank.evaluate(Y, S, "P")
    assert list(fam) == [f"P_{k}" for k in CUTS]
    assert fam["P_5"] == pytest.approx((2 / 5 + 2 / 5) / 2)
    # skrank's precision of the whole list (5 items) stays under its name
    assert skrank.evaluate(Y, S, "precision")["precision"] == pytest.approx(2 / 5)
    # a pytrec_eval-style set: trec_eval's order and names
    assert list(skrank.evaluate(Y, S, {"P.1,2", "recip_rank"})) == [
        "recip_rank",
        "P_1",
        "P_2",
    ]


def test_evaluate_run_keys_and_query_results():
    qrels = {"q1": {"d1": 1, "d2": 0, "d4": 2}, "q2": {"d7": 1}}
    run = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}, "q2": {"d7": 0.3, "d8": 0.3}}
    means, table = evaluate_run(
        qrels, run, ["P@2", "precision@2", "success"], return_per_query=True
    )
    assert list(means) == ["P@2", "precision@2", "success_1", "success_5", "success_10"]
    assert list(table) == list(means)
    np.testing.assert_array_equal(table["P@2"], table["precision@2"])
    assert table.tie_bounds == {}
    # compare() reads the keys as written
    _, tb = evaluate_run(
        qrels, run, ["P@2", "precision@2"], return_per_query=True, tie_bounds=True
    )
    assert list(tb.tie_bounds) == ["P@2", "precision@2"]


# -- the same values as the tools ---------------------------------------------

SYN_QRELS = (
    "1 0 d1 1\n1 0 d2 0\n1 0 d4 2\n1 0 d6 1\n"
    "2 0 d5 2\n2 0 d6 1\n2 0 d8 0\n"
    "10 0 d1 0\n10 0 d3 0\n"
    "11 0 d1 1\n11 0 d2 1\n11 0 d3 2\n11 0 d9 0\n"
)
SYN_RUN = (
    "1 Q0 d1 1 0.5 sysA\n1 Q0 d2 2 0.5 sysA\n1 Q0 d3 3 0.1 sysA\n"
    "1 Q0 d4 4 0.05 sysA\n"
    "2 Q0 d5 1 0.9 sysA\n2 Q0 d7 2 0.8 sysA\n2 Q0 d8 3 0.8 sysA\n"
    "2 Q0 d6 4 0.2 sysA\n"
    "10 Q0 d3 1 1.0 sysA\n10 Q0 d2 2 0.7 sysA\n"
    "11 Q0 d3 1 0.4 sysA\n11 Q0 d9 2 0.4 sysA\n11 Q0 d1 3 0.4 sysA\n"
    "11 Q0 d7 4 0.3 sysA\n11 Q0 d2 5 0.1 sysA\n"
)


def _inputs():
    """(id, qrels path or text, run path or text): the synthetic case always,
    trec_eval's test files when they are present."""
    cases = [("synthetic", SYN_QRELS, SYN_RUN)]
    for name in ("qrels.test", "qrels.rel_level"):
        if (DATA / name).exists() and (DATA / "results.test").exists():
            cases.append((name, DATA / name, DATA / "results.test"))
    return cases


INPUTS = _inputs()


@pytest.fixture(params=INPUTS, ids=[c[0] for c in INPUTS])
def trec_files(request, tmp_path):
    name, qrels, run = request.param
    if isinstance(qrels, str):
        (tmp_path / "qrels").write_text(qrels)
        (tmp_path / "run").write_text(run)
        return name, tmp_path / "qrels", tmp_path / "run"
    return name, qrels, run


# An ir_measures user's measure list; the providers ir_measures picks here are
# pytrec_eval (trec_eval 9.0.8) and gdeval (ERR@20, exp-log2 nDCG@10), whose
# output has 4 or 5 decimals.
IR_MEASURES = [
    "nDCG@10",
    "nDCG",
    "P(rel=2)@5",
    "P@5",
    "AP",
    "AP@10",
    "RR",
    "RR(rel=2)",
    "R@100",
    "Rprec",
    "Bpref",
    "Success@10",
    "SetP",
    "SetR",
    "SetF",
    "NumRet",
    "NumRet(rel=1)",
    "NumRel",
    "NumQ",
    "IPrec@0.5",
    "infAP",
    "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10",
    "Judged@10",
]
GDEVAL = ["ERR@20", "nDCG(dcg='exp-log2')@10"]


def test_an_ir_measures_users_list_gives_ir_measures_values(trec_files):
    name, qrels_path, run_path = trec_files
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    names = IR_MEASURES + (GDEVAL if name == "synthetic" else [])
    # qrels.rel_level judges documents -1 (pooled, not assessed), which
    # ir_measures' Judged counts as judged: convention="ir_measures"
    parsed = [ir_measures.parse_measure(n) for n in names]
    expected = {}
    # each measure by the provider named here (ir_measures' default pipeline
    # may pick ranx, whose order of tied documents is not trec_eval's)
    providers = {
        "Judged@10": ir_measures.judged,
        **{n: ir_measures.gdeval for n in GDEVAL},
    }
    for provider in {*providers.values(), ir_measures.pytrec_eval}:
        mine = [
            m
            for n, m in zip(names, parsed, strict=True)
            if providers.get(n, ir_measures.pytrec_eval) is provider
        ]
        if mine:
            for r in provider.iter_calc(mine, qrels, run):
                expected[(str(r.measure), r.query_id)] = r.value
    _, got = evaluate_run(
        qrels_path, run_path, names, convention="ir_measures", return_per_query=True
    )
    assert list(got) == names
    qids = [str(q) for q in got.qid]
    checked = 0
    for n, m in zip(names, parsed, strict=True):
        tol = 6e-5 if n in GDEVAL else 1e-9
        for i, q in enumerate(qids):
            want = expected.get((str(m), q))
            if want is None:
                continue
            assert got[n][i] == pytest.approx(want, abs=tol), (n, q)
            checked += 1
    assert checked >= len(names) * 3


PYTREC_SET = {
    "P",
    "recall",
    "ndcg_cut",
    "map_cut",
    "success",
    "map",
    "recip_rank",
    "Rprec",
    "bpref",
    "ndcg",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "set_P",
    "set_recall",
    "set_F",
}


def test_a_pytrec_eval_users_measure_set_gives_pytrec_eval_values(trec_files):
    _, qrels_path, run_path = trec_files
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    expected = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_SET).evaluate(run)
    _, got = evaluate_run(
        qrels_path,
        run_path,
        PYTREC_SET,
        ties="trec_eval",
        score_dtype="float32",
        return_per_query=True,
    )
    # the keys pytrec_eval gives, every one
    some = next(iter(expected.values()))
    assert set(got) == set(some)
    for i, q in enumerate(str(q) for q in got.qid):
        for key, value in expected[q].items():
            assert got[key][i] == pytest.approx(value, abs=1e-9), (key, q)


def test_pytrec_eval_s_interpolated_precision_is_trec_eval_9_s(trec_files):
    """pytrec_eval wraps trec_eval 9.0.8, which rounds a recall level to a
    number of relevant items as (long)(level R + 0.9); skrank follows trec_eval
    10 (lround) unless asked: ``rounding=trec_eval_9``."""
    _, qrels_path, run_path = trec_files
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"iprec_at_recall", "11pt_avg"}
    ).evaluate(run)
    names = [f"iprec_at_recall(level={v},rounding=trec_eval_9)" for v in LEVELS]
    names.append("11pt_avg(rounding=trec_eval_9)")
    keys = [f"iprec_at_recall_{v}" for v in LEVELS] + ["11pt_avg"]
    _, got = evaluate_run(
        qrels_path,
        run_path,
        names,
        ties="trec_eval",
        score_dtype="float32",
        return_per_query=True,
    )
    for i, q in enumerate(str(q) for q in got.qid):
        for name, key in zip(names, keys, strict=True):
            assert got[name][i] == pytest.approx(expected[q][key], abs=1e-9)


def test_parse_metrics_still_lists_specs():
    assert [s.name for s in parse_metrics(["P.5,10", "nDCG@3"], "test")] == [
        "precision@5",
        "precision@10",
        "ndcg@3",
    ]


# -- ir_measures' cutoff= -------------------------------------------------------

# ir_measures' own reading of each name (ir_measures.parse_measure, run here)
# is the same measure as the "@" spelling; skrank reads both as one metric
CUTOFF_KEYWORD = [
    ("nDCG(dcg='exp-log2', cutoff=20)", "nDCG(dcg='exp-log2')@20"),
    ('nDCG(dcg="exp-log2",cutoff=20)', "nDCG(dcg='exp-log2')@20"),
    ("P(cutoff=5)", "P@5"),
    ("P(rel=2, cutoff=5)", "P(rel=2)@5"),
    ("AP(cutoff=100)", "AP@100"),
    ("Judged(cutoff=10)", "Judged@10"),
    ("P(cutoff=5)@5", "P@5"),
]


@pytest.mark.parametrize(
    "name, at_spelling", CUTOFF_KEYWORD, ids=[c[0] for c in CUTOFF_KEYWORD]
)
def test_ir_measures_cutoff_keyword_is_the_cutoff(name, at_spelling):
    if "@" not in name:  # ir_measures refuses a cutoff given both ways
        assert ir_measures.parse_measure(name) == ir_measures.parse_measure(at_spelling)
    assert get_metric(name) == get_metric(at_spelling)
    assert get_metric(name).k == get_metric(at_spelling).k


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "P(cutoff=5)@10",
            r"The cutoff is given twice in metric name 'P\(cutoff=5\)@10', as "
            r"cutoff=5 and as @10; give one of them\.",
        ),
        ("P(cutoff=5, cutoff=6)", r"Parameter 'cutoff' is given twice"),
        ("P(cutoff=0)", r"The cutoff= in metric name 'P\(cutoff=0\)' must be a "),
        ("P(cutoff=2.5)", r"must be a positive integer written with the digits"),
        ("P(cutoff='5')", r"Got \"'5'\" instead"),
        ("Rprec(cutoff=3)", r"Metric 'r_precision' takes no cutoff"),
    ],
)
def test_cutoff_keyword_errors(name, message):
    with pytest.raises(InvalidParameterError, match=message):
        get_metric(name)


# -- pytrec_eval's merged cutoffs -----------------------------------------------


def test_family_cutoffs_merged_is_pytrec_eval_s_reading():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 0.5, "b": 0.7}}
    for measures in (
        {"ndcg_cut", "ndcg_cut.1,4"},
        {"P", "P_3"},
        {"recall", "recall.2", "P"},
        {"iprec_at_recall", "iprec_at_recall.0.5"},
        {"official", "P.3"},
    ):
        keys = set(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)["q"])
        keys.discard("runid")
        got = read_metrics(measures, "test", family_cutoffs="merged")
        assert {key for key, _ in got} == keys, measures
    # read one name at a time (the default), a bare family adds its defaults
    assert len(read_metrics({"ndcg_cut", "ndcg_cut.1,4"}, "test")) == 11
