"""Power and sample size of the paired t-test, for planning a comparison.

How many queries does a test collection need to detect a difference between
two systems? The paired t-test of ``n`` per-query differences ``d`` with mean
``delta`` and standard deviation ``sigma`` has the statistic ``t =
mean(d) / (sd(d) / sqrt(n))``, which follows the noncentral t distribution
with ``n - 1`` degrees of freedom and noncentrality ``delta / sigma *
sqrt(n)`` (:data:`scipy.stats.nct`); the power is the chance that it falls
beyond the critical values of the central t distribution. The sample size is
the smallest ``n`` whose power reaches the target, found by doubling ``n``
and then bisecting (the power grows with ``n``).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._faces import public
from ._validation import (
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    as_numeric_array,
    plain,
)

__all__ = ["MAX_QUERIES", "paired_power", "paired_sample_size"]

ALTERNATIVES = ("two-sided", "greater", "less")

#: The largest number of queries :func:`paired_sample_size` looks for: an
#: effect that needs more is too small to plan for.
MAX_QUERIES = 10**9

_PLAN = {
    "effect": [Interval("real", None, None, "neither"), NONE],
    "sd": [Interval("real", 0.0, None, "neither"), NONE],
    "alpha": [Interval("real", 0.0, 1.0, "neither")],
    "alternative": [Options(ALTERNATIVES)],
}
_SIZE = {"power": [Interval("real", 0.0, 1.0, "neither")], **_PLAN}
_POWER = {"n_queries": [Interval("int", 2, None, "left")], **_PLAN}

_TEXTS = {
    "plan": """a, b : array-like of shape (n_queries,), default=None
    Per-query values of two systems on the same queries (a pilot study):
    the effect and its standard deviation are the mean and the standard
    deviation (``ddof=1``) of ``a - b``. Give ``a`` and ``b``, or
    ``effect`` and ``sd``.
effect : float, default=None
    The planned mean of the per-query differences ``a - b``.
sd : float, default=None
    The planned standard deviation of the per-query differences, positive.
    ``effect / sd`` is Cohen's :math:`d_z`.""",
    "test": """alpha : float, default=0.05
    Significance level of the test, in (0, 1).
alternative : {"two-sided", "greater", "less"}, default="two-sided"
    The alternative hypothesis of the paired t-test
    (:func:`scipy.stats.ttest_rel`): the mean of ``a - b`` is non-zero,
    positive or negative.""",
}


def _d_z(caller, arguments):
    """Cohen's ``d_z`` (mean over standard deviation of the differences) of
    the per-query values or of the planned effect."""
    a, b = arguments["a"], arguments["b"]
    effect, sd = arguments["effect"], arguments["sd"]
    values = a is not None or b is not None
    planned = effect is not None or sd is not None
    if values == planned or (values and (a is None or b is None)):
        raise InvalidParameterError(
            f"{caller}: give either the per-query values 'a' and 'b' or the "
            "planned 'effect' and 'sd'; got "
            + ", ".join(
                n
                for n, v in (("a", a), ("b", b), ("effect", effect), ("sd", sd))
                if v is not None
            )
            + ("." if values or planned else "none of them.")
        )
    if planned:
        if effect is None or sd is None:
            missing = "effect" if effect is None else "sd"
            raise InvalidParameterError(
                f"{caller}: a planned effect needs both 'effect' and 'sd'; "
                f"{missing!r} is missing."
            )
        return float(effect) / float(sd)
    arrays = []
    for name, x in (("a", a), ("b", b)):
        arr = as_numeric_array(x, name, caller)  # finite real numbers
        if arr.ndim != 1 or arr.shape[0] < 2:
            raise InvalidParameterError(
                f"{name} of {caller} must be 1-D with at least two values (one "
                f"per query). Got shape {arr.shape} instead."
            )
        arrays.append(arr)
    if arrays[0].shape != arrays[1].shape:
        raise InvalidParameterError(
            f"{caller}: 'a' and 'b' must have one value per query each, on the "
            f"same queries; got {arrays[0].shape[0]} and {arrays[1].shape[0]}."
        )
    d = arrays[0] - arrays[1]
    sd = float(np.std(d, ddof=1))
    if not sd > 0.0:
        raise InvalidParameterError(
            f"{caller}: the differences 'a - b' are the same on every query "
            f"({plain(float(d[0]))}); their standard deviation is 0, and the "
            "paired t-test is undefined."
        )
    return float(np.mean(d)) / sd


def _power(d_z, n, alpha, alternative):
    """The power of the paired t-test of ``n`` (an array) queries."""
    n = np.asarray(n, dtype=np.float64)
    df, ncp = n - 1.0, d_z * np.sqrt(n)
    if alternative == "two-sided":
        c = stats.t.isf(alpha / 2.0, df)
        return stats.nct.sf(c, df, ncp) + stats.nct.cdf(-c, df, ncp)
    c = stats.t.isf(alpha, df)
    if alternative == "greater":
        return stats.nct.sf(c, df, ncp)
    return stats.nct.cdf(-c, df, ncp)


def _sample_size(caller, arguments):
    d_z = _d_z(caller, arguments)
    alpha, power = arguments["alpha"], arguments["power"]
    alternative = arguments["alternative"]
    toward = {"two-sided": d_z != 0.0, "greater": d_z > 0.0, "less": d_z < 0.0}
    if not toward[alternative]:
        raise InvalidParameterError(
            f"{caller}: an effect of Cohen's d_z = {d_z:g} is never detected "
            f"by the test with alternative={alternative!r}; no number of "
            "queries reaches the power."
        )

    def enough(n):
        return bool(_power(d_z, n, alpha, alternative) >= power)

    lo, hi = 1, 2  # not enough at lo (a test needs two queries), enough at hi
    while not enough(hi):
        if hi >= MAX_QUERIES:
            raise InvalidParameterError(
                f"{caller}: an effect of Cohen's d_z = {d_z:g} needs more than "
                f"{MAX_QUERIES} queries for power {power:g} at alpha = "
                f"{alpha:g}; plan for a larger effect."
            )
        lo, hi = hi, min(2 * hi, MAX_QUERIES)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def _power_of(caller, arguments):
    d_z = _d_z(caller, arguments)
    n = int(arguments["n_queries"])
    return float(_power(d_z, n, arguments["alpha"], arguments["alternative"]))


@public(_sample_size, _SIZE, data=("a", "b"), texts=_TEXTS, skip_none=("effect", "sd"))
def paired_sample_size(
    a=None,
    b=None,
    *,
    effect=None,
    sd=None,
    power=0.8,
    alpha=0.05,
    alternative="two-sided",
):
    """The number of queries the paired t-test needs to detect a difference.

    The smallest number of queries ``n`` at which the paired t-test
    (:func:`scipy.stats.ttest_rel`, as ``compare(..., test="t")``) of the
    differences ``a - b`` rejects at level ``alpha`` with probability at
    least ``power``, when the differences are normal with the given mean and
    standard deviation (those of a pilot study's per-query values, or
    planned ones).

    Parameters
    ----------
    %(plan)s
    power : float, default=0.8
        The probability of detecting the effect, in (0, 1).
    %(test)s

    Returns
    -------
    n_queries : int
        The number of queries, at least 2.

    Raises
    ------
    ValueError
        For both or neither of the values and the planned effect, values that
        are not one finite number per query of both systems, differences of
        standard deviation 0, an option out of its range, an effect the
        alternative never detects (0, or of the other sign), or an effect
        that needs more than :data:`MAX_QUERIES` (10**9) queries.

    See Also
    --------
    paired_power : The power of a given number of queries.
    compare : Compare systems with paired tests.

    Notes
    -----
    With ``d_z = effect / sd``, the power of ``n`` queries is
    ``P(T > c) + P(T < -c)`` for the two-sided test, ``T`` noncentral t with
    ``n - 1`` degrees of freedom and noncentrality ``d_z sqrt(n)``
    (:data:`scipy.stats.nct`) and ``c`` the ``1 - alpha / 2`` quantile of
    the central t distribution; a one-sided test keeps one tail at the
    ``1 - alpha`` quantile. It is the exact power of the test for normal
    differences, and close to it for others with a few dozen queries or
    more. An effect estimated from a small pilot study is itself uncertain:
    the sample size of its lower confidence bound is the cautious plan.

    References
    ----------
    .. [1] J. Cohen, "Statistical Power Analysis for the Behavioral Sciences",
       2nd ed., 1988, Table 2.4.1.
    .. [2] T. Sakai, "Topic set size design", Information Retrieval Journal
       19, 2016.

    Examples
    --------
    A medium effect (Cohen's d = 0.5) at level 0.05, power 0.8:

    >>> from skrank import paired_sample_size
    >>> paired_sample_size(effect=0.5, sd=1.0)
    34

    From per-query values of two systems (a pilot study, with ties in the
    values: queries 1 and 4 score the same for both systems):

    >>> a = [0.50, 0.42, 0.61, 0.30, 0.55, 0.48]
    >>> b = [0.50, 0.35, 0.52, 0.30, 0.49, 0.45]
    >>> paired_sample_size(a, b, power=0.9)
    11
    """


@public(_power_of, _POWER, data=("a", "b"), texts=_TEXTS, skip_none=("effect", "sd"))
def paired_power(
    a=None,
    b=None,
    *,
    effect=None,
    sd=None,
    n_queries,
    alpha=0.05,
    alternative="two-sided",
):
    """The power of the paired t-test on a given number of queries.

    The probability that the paired t-test (:func:`scipy.stats.ttest_rel`)
    of ``n_queries`` differences ``a - b`` rejects at level ``alpha``, when
    the differences are normal with the given mean and standard deviation
    (those of a pilot study's per-query values, or planned ones).

    Parameters
    ----------
    %(plan)s
    n_queries : int
        The number of queries, at least 2.
    %(test)s

    Returns
    -------
    power : float
        The probability of rejecting, in (0, 1).

    Raises
    ------
    ValueError
        For both or neither of the values and the planned effect, values that
        are not one finite number per query of both systems, differences of
        standard deviation 0, or an option out of its range.

    See Also
    --------
    paired_sample_size : The number of queries for a given power.

    Notes
    -----
    The formula of :func:`paired_sample_size`: with ``d_z = effect / sd``,
    ``P(T > c) + P(T < -c)``, ``T`` noncentral t with ``n_queries - 1``
    degrees of freedom and noncentrality ``d_z sqrt(n_queries)``, ``c`` the
    ``1 - alpha / 2`` quantile of the central t distribution (one tail at
    the ``1 - alpha`` quantile for a one-sided test). With no effect, the
    power is ``alpha``.

    Examples
    --------
    >>> from skrank import paired_power
    >>> round(paired_power(effect=0.5, sd=1.0, n_queries=34), 4)
    0.8078

    From per-query values of two systems, with ties (queries 1 and 4):

    >>> a = [0.50, 0.42, 0.61, 0.30, 0.55, 0.48]
    >>> b = [0.50, 0.35, 0.52, 0.30, 0.49, 0.45]
    >>> round(paired_power(a, b, n_queries=6), 3)
    0.588
    """
