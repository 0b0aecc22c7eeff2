"""Small things a new user meets: retrieval's MRR and its name suggestions,
``compare``'s printed tables, the model-selection guide's claims and the
install hints of the documentation.

Sources of the expected values: hand computations in comments, skrank's
own ``mean_reciprocal_rank_score`` on the same match matrix, and a loop
over scikit-learn's folds written out in the test.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, cross_val_score

import skrank
from skrank import RankingEvaluator, compare, get_scorer, ndcg_score
from skrank.datasets import make_ranking
from skrank.retrieval import evaluate_retrieval, get_retrieval_metric_names

ROOT = Path(__file__).resolve().parents[1]

# two queries of class 0 and 1; the index holds classes [0, 1, 0]
QUERY_LABELS = [0, 1]
INDEX_LABELS = [0, 1, 0]
DISTANCES = [[0.1, 0.2], [0.1, 0.3]]
INDICES = [[1, 0], [1, 2]]  # query 0: a miss then a match; query 1: a match


def test_evaluate_retrieval_computes_mrr():
    res = evaluate_retrieval(
        QUERY_LABELS, INDEX_LABELS, DISTANCES, INDICES, ["mrr", "mrr@1"]
    )
    # by hand: query 0 finds its class at rank 2 (1/2), query 1 at rank 1
    # (1); at k=1 query 0 finds none (0)
    assert res == {"mrr": 0.75, "mrr@1": 0.5}
    # the ranking metric on the match matrix of the same neighbours
    match = np.array([[0, 1], [1, 0]])
    scores = -np.asarray(DISTANCES)
    assert res["mrr"] == skrank.mean_reciprocal_rank_score(match, scores)
    assert "mrr" in get_retrieval_metric_names()


def test_evaluate_retrieval_mrr_is_exact_over_tied_distances():
    # the miss and the match tie: the match is first or second with equal
    # chance, 1/2 * (1 + 1/2) = 0.75
    res = evaluate_retrieval([0], [0, 1], [[0.2, 0.2]], [[1, 0]], "mrr")
    assert res == {"mrr": 0.75}


@pytest.mark.parametrize("typo", ["map_r", "mapr_at", "MAP_R@5", "mrx", "ndgc@3"])
def test_retrieval_suggestions_name_only_listed_names(typo):
    with pytest.raises(ValueError, match="Did you mean") as exc:
        evaluate_retrieval(QUERY_LABELS, INDEX_LABELS, DISTANCES, INDICES, typo)
    suggested = re.search(r"Did you mean (.*)\?", str(exc.value)).group(1)
    names = re.findall(r"'([^']+)'", suggested)
    assert names and set(names) <= set(get_retrieval_metric_names())
    assert "'mapr'" not in str(exc.value)


# --------------------------------------------------------------------------
# compare's printed tables
# --------------------------------------------------------------------------

RESULTS = {
    "a": {
        "map": [0.2, 0.4, 0.5, 0.9, 0.1, 0.7],
        "ndcg": [0.3, 0.5, 0.1, 0.7, 0.6, 0.9],
    },
    "b": {
        "map": [0.1, 0.3, 0.5, 0.2, 0.0, 0.1],
        "ndcg": [0.3, 0.4, 0.1, 0.6, 0.5, 0.8],
    },
}


def _columns(table):
    """The cells of a printed table, column by column (header first)."""
    rows = [line.split() for line in table.splitlines()]
    return list(zip(*rows, strict=True))


def _is_one_format(cells):
    numbers = [c for c in cells if re.fullmatch(r"-?\d[\d.e+-]*", c)]
    fixed = [c for c in numbers if re.fullmatch(r"-?\d+\.\d{4}", c)]
    scientific = [c for c in numbers if re.fullmatch(r"-?\d\.\d{3}e[+-]\d\d+", c)]
    return len(fixed) == len(numbers) or len(scientific) == len(numbers)


def test_compare_prints_one_number_format_per_column():
    # against the baseline b, a is far better on many queries (a p-value far
    # below 0.001) and c barely differs (a p-value above it): one column
    rng = np.random.default_rng(0)
    base = rng.random(200) * 0.5
    noise = rng.normal(0, 0.05, 200)
    res = compare(
        {
            "a": {"map": base + 0.3 + noise},
            "b": {"map": base},
            "c": {"map": base + noise},
        },
        baseline="b",
        interval="t",
    )
    text = repr(res)
    _, summary, pairs, _ = text.split("\n\n")
    for table in (summary, pairs):
        for column in _columns(table):
            name, cells = column[0], column[1:]
            if name in ("system", "baseline", "metric", "significant"):
                continue
            if name in ("wins", "ties", "losses"):  # counts, printed as ints
                assert all(c.isdigit() for c in cells)
                continue
            assert _is_one_format(cells), (name, cells)
    (p_values,) = [c for c in _columns(pairs) if c[0] == "p_value"]
    small, large = sorted(float(v) for v in p_values[1:])
    assert small < 1e-3 < large  # both printed in scientific notation
    mean = [c for c in _columns(summary) if c[0] == "mean"][0]
    assert all(re.fullmatch(r"\d\.\d{4}", c) for c in mean[1:])


def test_compare_explains_d_z_and_unseeded_resampling():
    text = repr(compare(RESULTS, n_resamples=99))
    assert "d_z: the mean difference over the standard deviation" in text
    assert "No random_state was given" in text
    # seeded, or nothing resampled: no such note
    assert "No random_state" not in repr(
        compare(RESULTS, n_resamples=99, random_state=0)
    )
    assert "No random_state" not in repr(compare(RESULTS, interval="t"))
    assert "No random_state" in repr(
        compare(RESULTS, interval="t", test="randomization", n_resamples=99)
    )


def test_cli_compare_output_carries_the_notes(tmp_path, capsys):
    from skrank._cli import main

    qrels = tmp_path / "qrels"
    qrels.write_text(
        "".join(f"q{q} 0 d{d} {int(d < 2)}\n" for q in range(4) for d in range(4))
    )
    runs = []
    for name, order in (("a", [0, 1, 2, 3]), ("b", [3, 2, 1, 0])):
        path = tmp_path / name
        path.write_text(
            "".join(
                f"q{q} Q0 d{d} {r + 1} {10 - r} {name}\n"
                for q in range(4)
                for r, d in enumerate(order)
            )
        )
        runs.append(str(path))
    assert main(["compare", str(qrels), *runs, "-m", "map", "--interval", "t"]) == 0
    assert "d_z: the mean difference" in capsys.readouterr().out


# --------------------------------------------------------------------------
# The model-selection guide
# --------------------------------------------------------------------------

GUIDE = (ROOT / "doc" / "user_guide" / "model_selection.rst").read_text()


def test_evaluator_without_qid_raises_as_the_guide_says():
    X, y, qid = make_ranking(
        n_queries=4, n_items=5, n_features=3, n_informative=2, random_state=0
    )
    model = RankingEvaluator(Ridge(), scoring="ndcg@10").fit(X, y)
    with pytest.raises(ValueError, match="got no query ids"):
        model.score(X, y)
    assert "all rows form a single ranking" not in GUIDE
    assert "single_query=True" in GUIDE


def test_cross_val_score_takes_qid_in_params_as_the_guide_shows():
    assert 'params={"groups": qid, "qid": qid}' in GUIDE
    X, y, qid = make_ranking(
        n_queries=12, n_items=(4, 8), n_features=3, n_informative=2, random_state=0
    )
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(
            Ridge(),
            X,
            y,
            scoring=get_scorer("ndcg@10"),
            cv=cv,
            params={"groups": qid, "qid": qid},
        )
    # the same folds by hand, each scored over its own queries
    expected = [
        ndcg_score(
            y[test],
            Ridge().fit(X[train], y[train]).predict(X[test]),
            k=10,
            qid=qid[test],
        )
        for train, test in cv.split(X, y, groups=qid)
    ]
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


def test_no_install_hint_assumes_a_published_release():
    texts = [p.read_text() for p in (ROOT / "doc").rglob("*.rst")]
    texts += [p.read_text() for p in (ROOT / "skrank" / "display").glob("*.py")]
    texts.append((ROOT / "README.md").read_text())
    assert not any("pip install skrank[plot]" in t for t in texts)
