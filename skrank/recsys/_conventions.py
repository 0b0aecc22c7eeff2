"""The recommender peers' conventions: one declaration per tool.

microsoft/recommenders and Evidently agree with skrank on what precision,
recall or novelty is, and differ in explicit choices: which users they
average over, the order of tied scores, which relevant items they see, and
a few definitions (novelty's popularity share, catalogue coverage's
catalogue, F-beta of the means, Evidently's MAR, items unseen in training).
Each definition is a parameter of the metric's declaration
(:mod:`skrank.measures.recsys`); a :class:`RecsysConvention` bundles the
parameters and the options of one tool, and
:func:`skrank.recsys.evaluate_recommendations` applies it with
``convention=``. What the caller writes wins: a parameter written in a
metric name, and an option passed explicitly.

Each fact names its source in the tool (module and function).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .._validation import InvalidParameterError, plain
from ..measures._base import ListMeasure

__all__ = [
    "OWN_DEFAULTS",
    "RECSYS_CONVENTIONS",
    "RecsysConvention",
    "get_recsys_convention",
]

#: The options that a convention sets, with skrank's own values: what
#: their default, None, stands for without a convention (the functions of
#: one metric, which take no convention, default to these).
OWN_DEFAULTS = {"ties": "average", "users": "relevant", "replace_undefined_by": 0.0}


@dataclass(frozen=True)
class RecsysConvention:
    """The choices that reproduce one recommender tool's numbers.

    Attributes
    ----------
    name : str
        The name users give (``convention="evidently"``).
    tool : str
        The tool and its functions.
    ties : str
        The tie rule of the tool's ordering.
    replace_undefined_by : float
        The value of a user where a metric is undefined (NaN: left out).
    users : str
        The users (``users=``) of the metrics that read the relevant items
        through the ranking (the accuracy metrics).
    list_users : str
        The users of the metrics of the lists (coverage, novelty,
        diversity, ...).
    metric_users : tuple
        Metrics whose users differ from those, as ``(metric, users)``.
    relevant : {"all", "candidates"}
        Which relevant items the tool sees: every test interaction, or only
        those among the user's candidates (a tool given one table of scored
        items with their target).
    params : tuple
        Per-metric parameters, as ``(metric, ((keyword, value), ...))``.
    notes : str
        What the convention does not reproduce.
    """

    name: str
    tool: str
    ties: str
    replace_undefined_by: float
    users: str
    list_users: str
    metric_users: tuple = ()
    relevant: str = "all"
    params: tuple = ()
    notes: str = ""

    def params_of(self, metric: str) -> dict:
        """The parameters this convention sets for metric ``metric``."""
        return dict(dict(self.params).get(metric, ()))

    def users_of(self, measure) -> str:
        """The users this convention evaluates ``measure`` over."""
        own = dict(self.metric_users)
        if measure.name in own:
            return own[measure.name]
        return self.list_users if isinstance(measure, ListMeasure) else self.users


_NAN = float("nan")

RECSYS_CONVENTIONS = (
    # recommenders 1.2.1, recommenders/evaluation/python_evaluation.py.
    # Rankings: merge_ranking_true_pred sorts by prediction with a stable
    # sort (ties in input order) and keeps the users of both frames (an
    # inner merge): precision_at_k, recall_at_k, map_at_k; ndcg_at_k merges
    # the test frame in full (an outer merge: a test user without
    # recommendations scores 0). The beyond-accuracy functions read the
    # recommendations alone (every user with a list). novelty: p(i) the
    # item's share of the training interactions (_get_item_novelty:
    # count / total interactions); catalog_coverage: the distinct
    # recommended items over the distinct training items.
    RecsysConvention(
        "recommenders",
        "microsoft/recommenders' python_evaluation (precision_at_k, "
        "recall_at_k, map_at_k, ndcg_at_k, novelty, catalog_coverage, "
        "distributional_coverage, diversity, serendipity)",
        ties="first",
        replace_undefined_by=_NAN,
        users="listed",
        list_users="all",
        metric_users=(("ndcg", "relevant"),),
        params=(
            ("novelty", (("share", "interactions"),)),
            ("catalog_coverage", (("catalogue", "train"),)),
        ),
        notes=(
            "ndcg_at_k treats every test interaction as relevance 1 by "
            "default (score_type='binary': pass binary interactions); its "
            "'raw' and 'exp' are ndcg and ndcg(gain=exponential). Its "
            "novelty counts an item unseen in training as self-information 0 "
            "and its catalog_coverage counts such an item in the numerator "
            "(above 1 possible); skrank refuses the first (smoothing= or "
            "unseen=drop) and counts the seen items only."
        ),
    ),
    # Evidently 0.7, evidently/legacy/metrics/recsys/ and
    # legacy/calculations/recommender_systems.py. Every metric reads one
    # table of scored items (collect_dataset): the relevant items it knows
    # are those among the candidates, and the users of the accuracy metrics
    # those with one of them (no_feedback_users=False). Ranks from the rank
    # column given (ties as given: skrank's "first"). FBetaTopKMetric: the F
    # of the mean precision and mean recall; MARKMetric: sum of recall_j at
    # the relevant ranks over the relevant items; NoveltyMetric and
    # PopularityBias's ARP drop items unseen in training (get_miuf,
    # get_apr: NaN popularity dropped); PopularityBias coverage over the
    # training items (get_coverage); its Gini over the recommended items;
    # DiversityMetric and SerendipityMetric their own definitions. Users
    # without a defined value are left out (NaN means).
    RecsysConvention(
        "evidently",
        "Evidently's recsys metrics (PrecisionTopKMetric, RecallTopKMetric, "
        "FBetaTopKMetric, MAPKMetric, MARKMetric, NDCGKMetric, MRRKMetric, "
        "HitRateKMetric, NoveltyMetric, PersonalizationMetric, "
        "PopularityBias, DiversityMetric, SerendipityMetric, "
        "ScoreDistribution)",
        ties="first",
        replace_undefined_by=_NAN,
        users="relevant",
        list_users="all",
        relevant="candidates",
        params=(
            ("fbeta", (("aggregate", "means"),)),
            ("mar", (("definition", "evidently"),)),
            ("novelty", (("unseen", "drop"),)),
            ("arp", (("unseen", "drop"),)),
            ("catalog_coverage", (("catalogue", "train"),)),
            ("gini", (("definition", "evidently"),)),
            ("ild", (("definition", "evidently"),)),
            ("serendipity", (("definition", "evidently"),)),
        ),
        notes=(
            "Given raw scores (recommendations_type='score'), Evidently "
            "ranks them by pandas' average rank: a tie group straddling the "
            "cut is kept whole by its accuracy metrics (precision above any "
            "ordering's) and dropped whole by novelty and popularity; no "
            "ordering of the ties gives those numbers. Pass it ranks. Its "
            "precision divides by min(k, the user's scored items), skrank's "
            "by k: equal when every user has k candidates."
        ),
    ),
)

_BY_NAME = {c.name: c for c in RECSYS_CONVENTIONS}


def get_recsys_convention(convention, caller: str) -> RecsysConvention | None:
    """The :class:`RecsysConvention` named ``convention`` (None: none).

    Raises :class:`~skrank._validation.InvalidParameterError` naming
    ``caller``'s ``convention`` parameter, the known names and the closest
    one.
    """
    if convention is None or isinstance(convention, RecsysConvention):
        return convention
    names = ", ".join(repr(c.name) for c in RECSYS_CONVENTIONS)
    if not isinstance(convention, str):
        raise InvalidParameterError(
            f"The 'convention' parameter of {caller} must be a str among "
            f"{names} or None. Got {plain(convention)} of type "
            f"{type(convention).__name__}."
        )
    folded = convention.lower().replace("-", "_").replace(" ", "_")
    if folded in _BY_NAME:
        return _BY_NAME[folded]
    close = difflib.get_close_matches(folded, list(_BY_NAME), n=2, cutoff=0.5)
    hint = (
        (" Did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""
    )
    raise InvalidParameterError(
        f"The 'convention' parameter of {caller} must be one of {names} or "
        f"None. Got {convention!r} instead.{hint}"
    )
