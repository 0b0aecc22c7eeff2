"""Public ranking metrics: the ``*_score`` functions, one module per family.

Each function is a thin face over the registry and the engine (see
:func:`skrank._faces.metric_function`).
"""

from .ap import (
    bpref_score,
    gm_bpref_score,
    gm_map_score,
    infap_score,
    map_at_r_score,
    mean_average_precision_score,
    yaap_score,
)
from .counts import (
    num_queries_score,
    num_relevant_retrieved_score,
    num_relevant_score,
    num_retrieved_score,
    set_f_score,
    set_precision_score,
    set_recall_score,
)
from .cutoff import (
    f1_at_k_score,
    hit_rate_score,
    hits_score,
    mean_reciprocal_rank_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from .dcg import (
    bndcg_score,
    dcg_score,
    ndcg_score,
)
from .err import (
    err_score,
    nerr_score,
)
from .iprec import (
    eleven_point_precision_score,
    interpolated_precision_score,
    precision_recall_curve_per_query,
)
from .judged import (
    judged_at_k_score,
    unjudged_at_k_score,
)
from .rbp import (
    rbp_residual_score,
    rbp_score,
)
from .trec_eval import (
    binary_g_score,
    ndcg_rel_score,
    normalized_gain_score,
    num_nonrelevant_judged_retrieved_score,
    r_ndcg_score,
    r_precision_mult_score,
    relative_precision_score,
    set_map_score,
    set_relative_precision_score,
    unjudged_rate_score,
    utility_score,
)

__all__ = [
    "binary_g_score",
    "bndcg_score",
    "bpref_score",
    "dcg_score",
    "eleven_point_precision_score",
    "err_score",
    "f1_at_k_score",
    "gm_bpref_score",
    "gm_map_score",
    "hit_rate_score",
    "hits_score",
    "infap_score",
    "interpolated_precision_score",
    "judged_at_k_score",
    "map_at_r_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_rel_score",
    "ndcg_score",
    "nerr_score",
    "normalized_gain_score",
    "num_nonrelevant_judged_retrieved_score",
    "num_queries_score",
    "num_relevant_retrieved_score",
    "num_relevant_score",
    "num_retrieved_score",
    "precision_at_k_score",
    "precision_recall_curve_per_query",
    "r_ndcg_score",
    "r_precision_mult_score",
    "r_precision_score",
    "rbp_residual_score",
    "rbp_score",
    "recall_at_k_score",
    "relative_precision_score",
    "set_f_score",
    "set_map_score",
    "set_precision_score",
    "set_recall_score",
    "set_relative_precision_score",
    "unjudged_at_k_score",
    "unjudged_rate_score",
    "utility_score",
    "yaap_score",
]
