"""Tuning fusion: :func:`optimize_fusion` (a grid over a method's weights and
parameters, each fused run evaluated with a skrank metric) and
:class:`FusionRanker`, an estimator over a table of the runs' scores whose
parameters scikit-learn's model selection tunes."""

from __future__ import annotations

import itertools
import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._engine import factorize, stable_group_order
from .._progress import check_verbose, progress, tracked
from .._validation import InvalidParameterError, plain
from ..trec import evaluate_run, read_qrels
from ..trec._columns import table_from_arrays
from ._engine import Joined, Part, join, to_run
from ._fuse import (
    check_params,
    check_weights,
    fuse_parts,
    normalized_parts,
    read_runs,
    resolve_method,
    resolve_norm,
    train,
)


def weight_grid(n_runs: int, step: float) -> list:
    """Every tuple of ``n_runs`` weights from ``0, step, ..., 1`` that sums
    to 1 (to rounding), in the order of :func:`itertools.product`."""
    n = int(round(1 / step))
    digits = max(0, -int(np.floor(np.log10(step))))
    values = [round(i * step, digits) for i in range(n + 1)]
    return [
        w for w in itertools.product(values, repeat=n_runs) if abs(sum(w) - 1) < 1e-9
    ]


def _candidates(method, grid, n_runs, step, caller):
    """The parameter settings to try: dicts of ``weights`` and parameters."""
    if grid is None:
        grid = {p.name: list(p.grid) for p in method.params if p.grid}
        if method.weighted:
            grid["weights"] = weight_grid(n_runs, step)
        if not grid:
            raise InvalidParameterError(
                f"{caller}: method {method.name!r} has no weight or parameter to "
                "tune; pass a method that has (see get_fusion_method_names)."
            )
    elif not isinstance(grid, dict) or not grid:
        raise InvalidParameterError(
            f"The 'grid' parameter of {caller} must be None or a non-empty dict "
            f"{{parameter: list of values}}; got {plain(grid)}."
        )
    names = list(grid)
    values = [list(grid[n]) for n in names]
    for name, options in zip(names, values, strict=True):
        if not options:
            raise InvalidParameterError(
                f"The 'grid' parameter of {caller} must give each parameter at "
                f"least one value; {name!r} has none."
            )
    return [
        dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)
    ]


def optimize_fusion(
    qrels,
    runs,
    method: str = "wsum",
    norm: str | None = "min-max",
    metric: str = "ndcg@10",
    *,
    grid: dict | None = None,
    step: float = 0.1,
    convention: str | None = None,
    verbose: int = 0,
) -> dict:
    """The weights and parameters of a fusion method that score best.

    Every setting of a grid is fused (the runs joined and normalised once)
    and evaluated against ``qrels`` with a skrank metric; the best setting
    is returned. A supervised method (``probfuse``: ``n_segments``,
    ``slidefuse``: ``w``) is trained on the same qrels for each setting.
    It is the short form of tuning :class:`FusionRanker` with
    scikit-learn's model selection, without held-out queries.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        The judgments (anything :func:`~skrank.trec.read_qrels` reads).
    runs : list of Run, dict, DataFrame or path
        The runs to fuse.
    method : str, default="wsum"
        A fusion method (:func:`get_fusion_method_names`).
    norm : str or None, default="min-max"
        The normalisation applied to each run first.
    metric : str, default="ndcg@10"
        The metric to maximise, any name :func:`~skrank.trec.evaluate_run`
        reads (tied fused scores are evaluated tie-aware, the expected
        value over their orderings).
    grid : dict or None, default=None
        ``{parameter: values}`` to try, every combination (``"weights"``:
        a list of weight sequences, one weight per run). None: the
        method's own grid, ranx's: weights from 0 to 1 in steps of
        ``step`` that sum to 1, and for ``k``, ``gamma``, ``sigma``,
        ``phi``, ``n_segments`` and ``w`` the values declared with the
        method.
    step : float, default=0.1
        The step of the default weight grid.
    convention : str or None, default=None
        A convention of :func:`~skrank.trec.evaluate_run` for the metric
        (``"ranx"`` evaluates as ranx does).
    verbose : int or bool, default=0
        ``0`` is silent; ``1`` shows the progress over the grid's settings
        on standard error (a tqdm bar when tqdm is installed, else a plain
        line at most once a second).

    Returns
    -------
    best : dict
        The best setting, ``{parameter: value}``; of settings that score
        the same, the last in grid order (as ranx's ``optimize_fusion``).

    Raises
    ------
    ValueError
        A method without weights or parameters and no ``grid``, an empty or
        malformed grid, or any error of :func:`fuse` for a setting.

    See Also
    --------
    fuse : Fuse runs with a given setting.
    FusionRanker : The estimator for scikit-learn's model selection.

    Notes
    -----
    ranx keeps the weight tuples whose float sum is exactly 1, which drops
    some (``0.1 + 0.2 + 0.7`` is not exactly 1 in floating point); skrank
    keeps every tuple whose sum is 1 to rounding.

    Examples
    --------
    >>> from skrank.fusion import optimize_fusion
    >>> qrels = {"q1": {"d1": 1, "d4": 1}, "q2": {"d3": 1}}
    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d4": 1.0}, "q2": {"d3": 0.2, "d5": 0.9}}
    >>> b = {"q1": {"d4": 0.8, "d2": 0.5}, "q2": {"d3": 0.7, "d5": 0.1}}
    >>> optimize_fusion(qrels, [a, b], method="rrf", norm=None, metric="map")
    {'k': 100}
    """
    caller = "optimize_fusion"
    verbose = check_verbose(verbose, caller)
    spec = resolve_method(method, caller)
    normalization = resolve_norm(norm, caller)
    loaded = read_runs(runs, caller)
    judged = read_qrels(qrels)
    if not isinstance(step, numbers.Real) or not 0 < step <= 1:
        raise InvalidParameterError(
            f"The 'step' parameter of {caller} must be a float in the range "
            f"(0, 1]. Got {plain(step)} instead."
        )
    settings = _candidates(spec, grid, len(loaded), step, caller)
    joined = join(loaded)
    parts = normalized_parts(joined, normalization)
    pairs = np.arange(joined.n_pairs)
    trained = {}  # what a supervised method learned, by its training parameters
    best, best_score = None, -np.inf
    bar = progress(verbose, len(settings), desc=caller, unit="settings")
    for setting in tracked(settings, bar, lambda setting: 1):
        params = dict(setting)
        weights = check_weights(params.pop("weights", None), spec, len(loaded), caller)
        values = check_params(spec, params, caller)
        # a supervised method is trained on the qrels it is evaluated on,
        # once per setting of the parameters its training reads
        states = None
        if spec.train is not None:
            key = tuple(values[p.name] for p in spec.params if p.trains)
            if key not in trained:
                trained[key] = train(
                    spec, normalization, loaded, judged, None, caller, values
                )
            states = trained[key]
        score = fuse_parts(joined, parts, spec, weights, values, states)
        value = evaluate_run(
            judged, to_run(joined, pairs, score), metric, convention=convention
        )
        value = float(next(iter(value.values())))
        if value >= best_score:
            best, best_score = setting, value
    bar.close()
    return best


def _check_table(X, caller) -> np.ndarray:
    """A score table as float64: rows are (query, document) pairs, column 0
    the query id, column ``1 + r`` the score of run ``r`` (NaN: not
    retrieved)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] < 2:
        raise InvalidParameterError(
            f"The 'X' parameter of {caller} must be a 2-D array of a query id "
            "column and one score column per run; got shape "
            f"{tuple(int(n) for n in X.shape)}."
        )
    scores = X[:, 1:]
    if np.isinf(scores).any() or np.isnan(X[:, 0]).any():
        raise InvalidParameterError(
            f"The 'X' parameter of {caller} must hold query ids and finite "
            "scores (NaN: a document the run did not retrieve); got an "
            "infinite score or a NaN query id."
        )
    return X


def _matrix_joined(X, caller):
    """Joined runs from a score table (:func:`_check_table`): the pairs (the
    rows some run retrieved, grouped by query) and the row of each pair."""
    X = _check_table(X, caller)
    scores = X[:, 1:]
    kept = np.flatnonzero(~np.isnan(scores).all(axis=1))
    qid_values, codes = factorize(X[kept, 0])
    # rows grouped by query (a counting sort of the query codes)
    order = stable_group_order(codes, qid_values.shape[0])
    rows, pair_query = kept[order], codes[order]
    parts = []
    for r in range(scores.shape[1]):
        s = scores[rows, r]
        held = np.flatnonzero(~np.isnan(s))
        parts.append(Part.of(held, pair_query[held], s[held]))
    return Joined(qid_values, pair_query, None, parts), rows


def _check_labels(y, X, spec, caller) -> np.ndarray:
    """The relevance label of each row of ``X`` as float64 (NaN: not
    judged), for a supervised method."""
    if y is None:
        raise InvalidParameterError(
            f"The 'y' parameter of {caller}.fit is needed by the supervised "
            f"method {spec.name!r}, which is trained on the relevance label of "
            "each row; got None."
        )
    try:
        labels = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        labels = None
    if labels is None or labels.shape != (X.shape[0],):
        raise InvalidParameterError(
            f"The 'y' parameter of {caller}.fit must hold one relevance label "
            f"per row of X ({X.shape[0]}); got shape "
            f"{tuple(int(n) for n in np.shape(y))}."
        )
    if np.isinf(labels).any():
        raise InvalidParameterError(
            f"The 'y' parameter of {caller}.fit must hold finite labels (NaN: "
            f"not judged); got {plain(float(labels[np.isinf(labels)][0]))}."
        )
    if np.isnan(labels).all():
        raise InvalidParameterError(
            f"The 'y' parameter of {caller}.fit must judge at least one row for "
            f"the supervised method {spec.name!r}; every label is NaN."
        )
    return labels


def _table_runs(X, y, caller):
    """The runs of a score table (one per score column) and the qrels of its
    labels, as :func:`fuse` receives them: a query's id is its code, a
    document's id its row of ``X``; rows labelled NaN are not judged."""
    _, codes = factorize(X[:, 0])
    rows = np.arange(X.shape[0])

    def table(kind, keep, values):
        return table_from_arrays(
            kind, codes[keep], rows[keep], values[keep], "the score table", caller
        )

    runs = []
    for r in range(1, X.shape[1]):
        held = ~np.isnan(X[:, r])
        if not held.any():
            raise InvalidParameterError(
                f"The 'X' parameter of {caller}.fit must hold a score of run "
                f"{r - 1} (column {r}) in some row, to train the supervised "
                "method; every score of that column is NaN."
            )
        runs.append(table("run", held, X[:, r]))
    return runs, table("qrels", ~np.isnan(y), y)


class FusionRanker(BaseEstimator):
    """A fusion method as an estimator, for scikit-learn's model selection.

    Each row of ``X`` is a (query, document) pair: column 0 holds the
    query id (a number), column ``1 + r`` the score of run ``r`` (NaN where
    the run did not retrieve the document). :meth:`predict` fuses the
    runs per query, as :func:`fuse` does (a supervised method trained by
    :meth:`fit` on the labels ``y`` of the training rows); its parameters
    (the method, the
    normalisation, the weights, the method's parameters) are what
    ``GridSearchCV`` tunes, scored by skrank's scorers
    (:func:`skrank.get_scorer`) with splits that keep queries whole
    (``GroupKFold`` on the query ids).

    Parameters
    ----------
    method : str, default="rrf"
        The fusion method (:func:`get_fusion_method_names`).
    norm : str or None, default=None
        The normalisation applied to each run first.
    weights : sequence of float or None, default=None
        One weight per run, for the weighted methods.
    params : dict or None, default=None
        The method's own parameters (``{"k": 60}``...).

    Attributes
    ----------
    n_features_in_ : int
        The number of columns of ``X`` seen by :meth:`fit`.
    trained_ : list of dict or None
        What a supervised method learned of each run from the rows and
        labels given to :meth:`fit`, one dict per score column, as
        ``fuse(..., qrels=)`` learns it (``"probs"``: the probability of
        relevance at each rank for PosFuse, SegFuse and SlideFuse, per
        segment for ProbFuse; ``"map"`` for MAPFuse; ``"log_odds"`` at
        each rank for BayesFuse); None for an unsupervised method.

    See Also
    --------
    fuse : Fuse runs.
    optimize_fusion : A grid search over one set of queries.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.fusion import FusionRanker
    >>> X = np.array([[1, 3.0, np.nan], [1, 2.0, 0.5], [1, 1.0, 0.8]])
    >>> FusionRanker(method="rrf", params={"k": 0}).fit(X).predict(X)
    array([1.        , 1.        , 1.33333333])

    Tied scores get equal fused scores:

    >>> X = np.array([[1, 1.0, 1.0], [1, 1.0, 1.0], [1, 0.0, 0.0]])
    >>> FusionRanker(method="combmnz").fit(X).predict(X)
    array([4., 4., 0.])
    """

    def __init__(self, method="rrf", norm=None, weights=None, params=None):
        self.method = method
        self.norm = norm
        self.weights = weights
        self.params = params

    def _settings(self, n_runs):
        caller = type(self).__name__
        spec = resolve_method(self.method, caller)
        normalization = resolve_norm(self.norm, caller)
        params = {} if self.params is None else self.params
        if not isinstance(params, dict):
            raise InvalidParameterError(
                f"The 'params' parameter of {caller} must be a dict or None; got "
                f"{type(params).__name__}."
            )
        values = check_params(spec, params, caller)
        weights = check_weights(self.weights, spec, n_runs, caller)
        return spec, normalization, weights, values

    def fit(self, X, y=None):
        """Check the parameters against ``X`` and train a supervised method.

        An unsupervised method learns nothing (``y`` is not used). A
        supervised one (``posfuse``, ``probfuse``, ``mapfuse``,
        ``bayesfuse``, ``segfuse``, ``slidefuse``) is trained on the rows
        of ``X`` and their labels ``y`` exactly as :func:`fuse` trains it
        on runs and qrels (``fuse(..., qrels=)``): each score column is a
        run, each row a (query, document) pair, and ``y`` the qrels.

        Parameters
        ----------
        X : array-like of shape (n_pairs, 1 + n_runs)
            Query id and the runs' scores of each (query, document) pair.
        y : array-like of shape (n_pairs,), default=None
            Relevance label of each pair, for a supervised method (a label
            of at least 1 is relevant). A document no assessor judged is
            given 0 (not relevant, as trec_eval counts it) or NaN (not
            judged: left out of the qrels). A query whose every label is
            NaN is not a training query; one labelled 0 throughout is a
            judged query without relevant documents, and counts in the
            averages over judged queries. Ignored by an unsupervised
            method.

        Returns
        -------
        self : FusionRanker
            The fitted estimator.

        Raises
        ------
        ValueError
            ``y`` missing for a supervised method, not one finite label (or
            NaN) per row, or all NaN; a score column without any score.

        See Also
        --------
        predict : The fused scores.
        """
        caller = type(self).__name__
        X = _check_table(X, caller)
        spec, normalization, _, values = self._settings(X.shape[1] - 1)
        trained = None
        if spec.train is not None:
            y = _check_labels(y, X, spec, caller)
            runs, qrels = _table_runs(X, y, caller)
            trained = train(spec, normalization, runs, qrels, None, caller, values)
        self.trained_ = trained
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        """The fused score of each pair.

        Parameters
        ----------
        X : array-like of shape (n_pairs, 1 + n_runs)
            Query id and the runs' scores of each (query, document) pair.

        Returns
        -------
        scores : ndarray of shape (n_pairs,)
            The fused scores; ``-inf`` for a pair no run retrieved.

        See Also
        --------
        skrank.fusion.fuse : The same fusion of runs.
        """
        check_is_fitted(self)
        X = np.asarray(X, dtype=np.float64)
        caller = type(self).__name__
        joined, rows = _matrix_joined(X, caller)
        if X.shape[1] != self.n_features_in_:
            raise InvalidParameterError(
                f"The 'X' parameter of {caller}.predict must have "
                f"{self.n_features_in_} columns, as in fit; got {X.shape[1]}."
            )
        spec, normalization, weights, values = self._settings(X.shape[1] - 1)
        states = None
        if spec.train is not None:
            states = getattr(self, "trained_", None)
            if states is None:
                raise InvalidParameterError(
                    f"{caller}.predict: the supervised method {spec.name!r} "
                    "was not trained; call fit with y after setting it."
                )
        parts = normalized_parts(joined, normalization)
        out = np.full(X.shape[0], -np.inf)
        out[rows] = fuse_parts(joined, parts, spec, weights, values, states)
        return out
