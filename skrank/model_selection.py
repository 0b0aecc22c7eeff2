"""Cross-validation per query, and comparing models across resampled splits.

:func:`cross_val_per_query` scores one estimator out of fold, query by query,
on splits that keep every query whole: the per-query values of several
estimators on the same splits go straight to :func:`skrank.compare`.
:func:`corrected_resampled_ttest` compares two models by their per-split
scores (``cv_results_["split{i}_test_score"]`` of a search), with the
variance correction of Nadeau and Bengio for the overlap of the training sets.
"""

from __future__ import annotations

import numbers
import warnings
from collections import namedtuple

import numpy as np
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import GroupKFold, check_cv
from sklearn.utils.validation import check_consistent_length

from ._engine import factorize
from ._evaluate import evaluate
from ._evaluator import RankingEvaluator, select_rows
from ._results import QueryResults
from ._validation import (
    Interval,
    InvalidParameterError,
    Options,
    check_qid,
    plain,
    validate_params,
)

__all__ = ["corrected_resampled_ttest", "cross_val_per_query"]

CorrectedTtestResult = namedtuple("CorrectedTtestResult", ["statistic", "pvalue", "df"])
CorrectedTtestResult.__doc__ = """Result of :func:`corrected_resampled_ttest`.

statistic : float
    The corrected t statistic.
pvalue : float
    Its p-value for the ``alternative`` asked.
df : int
    The degrees of freedom, the number of splits minus one.
"""


def _splits(cv, X, y, qid):
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        validate_params(
            "cross_val_per_query",
            {"cv": cv},
            {"cv": [Interval("int", 2, None, "left")]},
        )
        splitter = GroupKFold(n_splits=int(cv))
    elif cv is None or isinstance(cv, bool):
        raise InvalidParameterError(
            "The 'cv' parameter of cross_val_per_query must be an int in the "
            "range [2, inf), a scikit-learn splitter or an iterable of "
            f"(train, test) index arrays. Got {plain(cv)} instead."
        )
    else:
        splitter = check_cv(cv)
    with warnings.catch_warnings():
        # a row splitter ignores groups; the folds are checked instead
        warnings.filterwarnings("ignore", "The groups parameter is ignored")
        return list(splitter.split(X, y, groups=qid))


def _check_fold(i, train, test, codes, counts, ids, tested):
    """Raise if fold ``i`` splits a query or scores one a second time."""
    n = counts.shape[0]
    in_test = np.bincount(codes[test], minlength=n)
    in_train = np.bincount(codes[train], minlength=n) > 0
    split = (in_test > 0) & in_train
    if split.any():
        shown = ", ".join(plain(q) for q in ids[split][:5])
        raise InvalidParameterError(
            f"cross_val_per_query: fold {i} puts rows of {int(split.sum())} "
            f"quer{'y' if split.sum() == 1 else 'ies'} (query id {shown}"
            f"{' ...' if split.sum() > 5 else ''}) both in its training and in "
            "its test rows. The splitter must keep every query whole: use a "
            "group splitter such as GroupKFold, which receives groups=qid."
        )
    partial = (in_test > 0) & (in_test != counts)
    if partial.any():
        q = ids[partial][0]
        raise InvalidParameterError(
            f"cross_val_per_query: the test rows of fold {i} hold only some "
            f"rows of query id {plain(q)}; every query must be scored with all "
            "its rows."
        )
    again = (in_test > 0) & tested
    if again.any():
        raise InvalidParameterError(
            f"cross_val_per_query: query id {plain(ids[again][0])} is in the "
            f"test rows of fold {i} and of an earlier fold; every query must be "
            "scored once (the test folds must not overlap)."
        )
    tested |= in_test > 0


def cross_val_per_query(
    estimator,
    X,
    y,
    *,
    qid,
    metrics,
    cv=5,
    ties="average",
    replace_undefined_by=0.0,
):
    """Out-of-fold values of several ranking metrics, one per query.

    Each split's training rows fit a clone of ``estimator``; its test rows
    are scored by :func:`skrank.evaluate` with ``average=None``. Every query
    is in the test rows of one split, whole, so that the folds' values
    together hold each query's value once: the per-query values of
    several estimators on the same splits are what :func:`skrank.compare`
    compares.

    Parameters
    ----------
    estimator : estimator object
        A ranker whose ``fit`` takes ``qid`` (``XGBRanker``) or ``group``
        (``LGBMRanker``), any pointwise regressor or classifier, or a
        :class:`skrank.RankingEvaluator`. Anything else is wrapped in a
        ``RankingEvaluator``, which gives the ranker the query groups in the
        form it takes. A ``RankingEvaluator`` that reads the query id from a
        column of ``X`` (``qid=0``) is fitted without ``qid=``.
    X : {array-like, sparse matrix, DataFrame} of shape (n_rows, n_features)
        The rows (items).
    y : array-like of shape (n_rows,)
        The relevance of each row.
    qid : array-like of shape (n_rows,)
        The query id of each row; the groups of the splitter.
    metrics : str, MetricSpec or list of them
        The metrics, as :func:`skrank.evaluate` takes them (``"ndcg@10"``,
        ``["map", "P@5"]``).
    cv : int, cross-validation generator or iterable, default=5
        An int is the number of folds of ``GroupKFold``. A scikit-learn
        splitter receives ``groups=qid``; an iterable gives ``(train, test)``
        index arrays. The test folds must not overlap, and no query may have
        rows both in the training and in the test rows of a split.
    ties : {"average", "optimistic", "pessimistic", "random"}, default="average"
        How tied scores are ranked; see :func:`skrank.evaluate`.
    replace_undefined_by : float or np.nan, default=0.0
        The value of a metric undefined for a query (no relevant item); see
        :func:`skrank.evaluate`.

    Returns
    -------
    results : QueryResults
        Each metric's per-query values, with the query ids in ``qid``: the
        queries of the first test fold (in sorted order), then those of the
        second, and so on. Queries in no test fold are not in it.

    Raises
    ------
    ValueError
        If a split puts rows of one query both in its training and in its
        test rows (a row splitter such as ``KFold``), if a test fold holds
        only some rows of a query, if two test folds share a query, or for
        any bad input of :func:`skrank.evaluate`.

    See Also
    --------
    skrank.compare : Compare the per-query values of several estimators.
    skrank.RankingEvaluator : Query groups for any estimator.
    corrected_resampled_ttest : Compare two models by per-split scores.

    Notes
    -----
    The splits are made once, so with a deterministic splitter (``GroupKFold``
    or a splitter with an int ``random_state``) several estimators are
    scored on the same folds. The loop runs over the folds; within a fold
    the queries are scored together.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from skrank import compare
    >>> from skrank.datasets import make_ranking
    >>> from skrank.model_selection import cross_val_per_query
    >>> X, y, qid = make_ranking(n_queries=30, n_items=10, random_state=0)
    >>> ridge = cross_val_per_query(Ridge(), X, y, qid=qid,
    ...                             metrics=["ndcg@5", "mrr"], cv=3)
    >>> ridge
    QueryResults(30 queries, 2 metrics)
    qid  ndcg@5     mrr
      2  0.8836  1.0000
      5  0.9060  1.0000
      8  0.8089  1.0000
     11  0.8286  1.0000
     14  0.9060  1.0000
    ... (25 more)
    >>> strong = cross_val_per_query(Ridge(alpha=1e4), X, y, qid=qid,
    ...                              metrics=["ndcg@5", "mrr"], cv=3)
    >>> res = compare({"ridge": ridge, "alpha=1e4": strong}, interval="t")
    >>> row = res.pairs_[0]
    >>> row["system"], row["baseline"], row["metric"], round(row["diff"], 4)
    ('alpha=1e4', 'ridge', 'ndcg@5', -0.0191)

    A constant model ties every item of a query: with ``ties="average"`` it
    scores the expected value over the orderings of the tie, and the
    optimistic and pessimistic bounds bracket it:

    >>> from sklearn.dummy import DummyRegressor
    >>> for ties in ["average", "optimistic", "pessimistic"]:
    ...     res = cross_val_per_query(DummyRegressor(), X, y, qid=qid,
    ...                               metrics="ndcg@5", cv=3, ties=ties)
    ...     print(ties, round(res.mean()["ndcg@5"], 4))
    average 0.4417
    optimistic 1.0
    pessimistic 0.0257
    """
    validate_params(
        "cross_val_per_query",
        {"ties": ties, "replace_undefined_by": replace_undefined_by},
    )
    if qid is None:
        raise InvalidParameterError(
            "cross_val_per_query needs qid, the query id of each row, to keep "
            "every query within one fold."
        )
    y = np.asarray(y)
    check_consistent_length(X, y)
    q = check_qid(qid, y.shape[0], "cross_val_per_query")
    splits = _splits(cv, X, y, q)
    ids, codes = factorize(q)
    counts = np.bincount(codes, minlength=ids.shape[0])
    tested = np.zeros(ids.shape[0], dtype=bool)
    for i, (train, test) in enumerate(splits):
        _check_fold(i, np.asarray(train), np.asarray(test), codes, counts, ids, tested)

    if isinstance(estimator, RankingEvaluator):
        model = estimator
    else:
        model = RankingEvaluator(estimator)
    column_qid = model.qid is not None or model.single_query

    parts = []
    for train, test in splits:
        fold_model = clone(model)
        X_train = select_rows(X, train)
        if column_qid:
            fold_model.fit(X_train, y[train])
        else:
            fold_model.fit(X_train, y[train], qid=q[train])
        pred = fold_model.predict(select_rows(X, test))
        parts.append(
            evaluate(
                y[test],
                pred,
                metrics,
                qid=q[test],
                ties=ties,
                average=None,
                replace_undefined_by=replace_undefined_by,
            )
        )
    if not parts:
        raise InvalidParameterError("cross_val_per_query: cv gave no split.")
    values = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    return QueryResults(values, np.concatenate([p.qid for p in parts]))


def _scores(scores, name):
    try:
        arr = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} of corrected_resampled_ttest must be a 1-D array of "
            "numbers, one score per split."
        ) from None
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"{name} of corrected_resampled_ttest must be 1-D, one score per "
            f"split; got shape {arr.shape}."
        )
    if not np.isfinite(arr).all():
        raise InvalidParameterError(
            f"{name} of corrected_resampled_ttest must be finite; it holds NaN "
            "or infinite values."
        )
    return arr


def corrected_resampled_ttest(
    scores_a, scores_b, *, n_train, n_test, alternative="two-sided"
):
    """The corrected resampled t-test of two models on the same splits.

    The scores of two models on ``k`` resampled train/test splits of the same
    data (the folds of a repeated cross-validation, for example) are not
    independent: the training sets overlap. Nadeau and Bengio [1]_ correct
    the variance of the mean difference for it: with ``d`` the differences
    ``scores_a - scores_b``,

    .. math::

       t = \\frac{\\bar d}{\\sqrt{\\left(\\frac{1}{k} +
       \\frac{n_{test}}{n_{train}}\\right) \\hat\\sigma^2_d}}

    where :math:`\\hat\\sigma^2_d` is the sample variance of ``d``
    (``ddof=1``), and ``t`` follows Student's t distribution with ``k - 1``
    degrees of freedom.

    Parameters
    ----------
    scores_a : array-like of shape (n_splits,)
        The score of the first model on each split, such as
        ``[cv_results_[f"split{i}_test_score"][j] for i in range(n_splits)]``
        of a ``GridSearchCV``.
    scores_b : array-like of shape (n_splits,)
        The score of the second model on the same splits, in the same order.
    n_train : int or float
        The number of training samples of a split (rows, or queries for a
        split by query; their mean when the splits differ in size).
    n_test : int or float
        The number of test samples of a split, in the same unit.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis: the mean difference ``a - b`` is not 0,
        is positive, or is negative.

    Returns
    -------
    result : CorrectedTtestResult
        A named tuple ``(statistic, pvalue, df)``: the corrected t
        statistic, its p-value and the degrees of freedom ``k - 1``. When
        every difference is 0 the statistic and the p-value are NaN; when
        all are equal and not 0 the statistic is infinite.

    Raises
    ------
    ValueError
        If the scores are not two finite 1-D arrays of the same length, at
        least 2, or ``n_train`` or ``n_test`` is not positive.

    See Also
    --------
    cross_val_per_query : Per-query values for :func:`skrank.compare`.
    scipy.stats.ttest_rel : The uncorrected paired t-test.

    Notes
    -----
    The correction factor :math:`1/k + n_{test}/n_{train}` replaces the
    :math:`1/k` of the paired t-test, which treats the splits as independent
    and rejects far too often. It is the test of scikit-learn's example
    "Statistical comparison of models using grid search", whose p-value
    ``t.sf(abs(t), k - 1)`` is one-sided: it is ``alternative="greater"``
    when the first model has the higher mean score (as there, the best model
    against the second best), and half the two-sided p-value.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the Generalization Error",
       Machine Learning 52, 239-281, 2003.

    Examples
    --------
    >>> from skrank.model_selection import corrected_resampled_ttest
    >>> a = [0.81, 0.79, 0.84, 0.80, 0.83, 0.82]
    >>> b = [0.78, 0.80, 0.80, 0.77, 0.81, 0.79]
    >>> res = corrected_resampled_ttest(a, b, n_train=80, n_test=20)
    >>> round(res.statistic, 3), round(res.pvalue, 3), res.df
    (2.064, 0.094, 5)
    >>> round(corrected_resampled_ttest(a, b, n_train=80, n_test=20,
    ...                                 alternative="greater").pvalue, 3)
    0.047
    """
    caller = "corrected_resampled_ttest"
    validate_params(
        caller,
        {"n_train": n_train, "n_test": n_test, "alternative": alternative},
        {
            "n_train": [Interval("real", 0, None, "neither")],
            "n_test": [Interval("real", 0, None, "neither")],
            "alternative": [Options(("two-sided", "greater", "less"))],
        },
    )
    a = _scores(scores_a, "scores_a")
    b = _scores(scores_b, "scores_b")
    if a.shape != b.shape:
        raise InvalidParameterError(
            f"scores_a and scores_b of {caller} must have one score per split "
            f"each, of the same splits; got {a.shape[0]} and {b.shape[0]}."
        )
    k = a.shape[0]
    if k < 2:
        raise InvalidParameterError(
            f"{caller} needs the scores of at least 2 splits; got {k}."
        )
    d = a - b
    mean = float(np.mean(d))
    var = float(np.var(d, ddof=1)) * (1.0 / k + float(n_test) / float(n_train))
    df = k - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.float64(mean) / np.sqrt(np.float64(var))
    t = float(t)
    if np.isnan(t):
        p = float("nan")
    elif alternative == "two-sided":
        p = float(2.0 * stats.t.sf(abs(t), df))
    elif alternative == "greater":
        p = float(stats.t.sf(t, df))
    else:
        p = float(stats.t.cdf(t, df))
    return CorrectedTtestResult(t, p, df)
