"""trec_eval's output reproduced byte for byte: ``--format trec_eval`` and
``evaluate_run(convention="trec_eval")`` against trec_eval 10.0, and
``convention="trec_eval9"`` against trec_eval 9.0.7.

Every expected output is the output of trec_eval itself, quoted literally,
with the command line that produced it on the files the test writes:
trec_eval 10.0 (usnistgov/trec_eval f425365, built from source) and
trec_eval 9.0.7 (tag v9.0.8, built from source). The tests never run it.
Each test names the source of trec_eval that causes the behaviour.
"""

from __future__ import annotations

import pytest

from cli.trec_eval_output_helpers import _skrank, _write
from skrank._cli import main

# -- a hostile collection, -q -c -m all_trec -------------------------------------

# Drawn with random.Random(2026): grades -1 .. 4, unjudged documents, ties,
# non-ASCII ids, scores "-0", "1.5e-3", "3e2", the run id changing from line
# to line; query 2 is judged only, query 3 retrieved only.
BIG_QRELS = (
    "1 0 d2 2\n"
    "1 0 d6 1\n"
    "1 0 a10 4\n"
    "1 0 日8 2\n"
    "1 0 d5 2\n"
    "1 0 Z9 4\n"
    "10 0 d6 3\n"
    "10 0 d2 3\n"
    "10 0 d5 3\n"
    "10 0 d3 2\n"
    "10 0 d4 0\n"
    "10 0 Z9 -1\n"
    "2 0 a10 4\n"
    "2 0 é7 -1\n"
    "2 0 日8 3\n"
    "2 0 d2 3\n"
    "2 0 d4 1\n"
    "2 0 Z9 3\n"
)


BIG_RUN = (
    "1 Q0 日8 1 -0 runA\n"
    "1 Q0 a10 2 -1.5 runA\n"
    "1 Q0 d4 3 -1.5 runB\n"
    "1 Q0 d1 4 1.5e-3 runB\n"
    "1 Q0 d5 5 -0 runB\n"
    "1 Q0 é7 6 0 runB\n"
    "1 Q0 d6 7 2.50 runA\n"
    "10 Q0 d6 1 1.0 runB\n"
    "10 Q0 a10 2 2.50 runB\n"
    "10 Q0 日8 3 3e2 runB\n"
    "10 Q0 d4 4 3e2 runB\n"
    "10 Q0 d1 5 2.50 runA\n"
    "10 Q0 é7 6 1.5e-3 runA\n"
    "10 Q0 d5 7 1 runA\n"
    "3 Q0 日8 1 3e2 runB\n"
    "3 Q0 Z9 2 1.5e-3 runB\n"
    "3 Q0 d5 3 -0 runA\n"
    "3 Q0 a10 4 1 runA\n"
    "3 Q0 d4 5 -1.5 runB\n"
    "3 Q0 d3 6 0 runA\n"
    "3 Q0 d6 7 -0 runB\n"
)


# trec_eval -q -c -m all_trec qrels run
BIG_OUTPUT = (
    "num_ret               \t1\t7\n"
    "num_rel               \t1\t6\n"
    "num_rel_ret           \t1\t4\n"
    "map                   \t1\t0.4730\n"
    "Rprec                 \t1\t0.5000\n"
    "bpref                 \t1\t0.6667\n"
    "recip_rank            \t1\t1.0000\n"
    "iprec_at_recall_0.00  \t1\t1.0000\n"
    "iprec_at_recall_0.10  \t1\t1.0000\n"
    "iprec_at_recall_0.20  \t1\t1.0000\n"
    "iprec_at_recall_0.30  \t1\t0.6667\n"
    "iprec_at_recall_0.40  \t1\t0.6667\n"
    "iprec_at_recall_0.50  \t1\t0.6000\n"
    "iprec_at_recall_0.60  \t1\t0.5714\n"
    "iprec_at_recall_0.70  \t1\t0.5714\n"
    "iprec_at_recall_0.80  \t1\t0.0000\n"
    "iprec_at_recall_0.90  \t1\t0.0000\n"
    "iprec_at_recall_1.00  \t1\t0.0000\n"
    "P_5                   \t1\t0.6000\n"
    "P_10                  \t1\t0.4000\n"
    "P_15                  \t1\t0.2667\n"
    "P_20                  \t1\t0.2000\n"
    "P_30                  \t1\t0.1333\n"
    "P_100                 \t1\t0.0400\n"
    "P_200                 \t1\t0.0200\n"
    "P_500                 \t1\t0.0080\n"
    "P_1000                \t1\t0.0040\n"
    "relstring             \t1\t'1-2-2-4'\n"
    "recall_5              \t1\t0.5000\n"
    "recall_10             \t1\t0.6667\n"
    "recall_15             \t1\t0.6667\n"
    "recall_20             \t1\t0.6667\n"
    "recall_30             \t1\t0.6667\n"
    "recall_100            \t1\t0.6667\n"
    "recall_200            \t1\t0.6667\n"
    "recall_500            \t1\t0.6667\n"
    "recall_1000           \t1\t0.6667\n"
    "infAP                 \t1\t0.4730\n"
    "Rprec_mult_0.20       \t1\t0.5000\n"
    "Rprec_mult_0.40       \t1\t0.6667\n"
    "Rprec_mult_0.60       \t1\t0.5000\n"
    "Rprec_mult_0.80       \t1\t0.6000\n"
    "Rprec_mult_1.00       \t1\t0.5000\n"
    "Rprec_mult_1.20       \t1\t0.5000\n"
    "Rprec_mult_1.40       \t1\t0.4444\n"
    "Rprec_mult_1.60       \t1\t0.4000\n"
    "Rprec_mult_1.80       \t1\t0.3636\n"
    "Rprec_mult_2.00       \t1\t0.3333\n"
    "utility               \t1\t1.0000\n"
    "11pt_avg              \t1\t0.5524\n"
    "binG                  \t1\t0.4269\n"
    "G                     \t1\t0.1934\n"
    "ndcg                  \t1\t0.4316\n"
    "ndcg_rel              \t1\t0.3523\n"
    "Rndcg                 \t1\t0.2492\n"
    "ndcg_cut_5            \t1\t0.3028\n"
    "ndcg_cut_10           \t1\t0.4316\n"
    "ndcg_cut_15           \t1\t0.4316\n"
    "ndcg_cut_20           \t1\t0.4316\n"
    "ndcg_cut_30           \t1\t0.4316\n"
    "ndcg_cut_100          \t1\t0.4316\n"
    "ndcg_cut_200          \t1\t0.4316\n"
    "ndcg_cut_500          \t1\t0.4316\n"
    "ndcg_cut_1000         \t1\t0.4316\n"
    "map_cut_5             \t1\t0.3778\n"
    "map_cut_10            \t1\t0.4730\n"
    "map_cut_15            \t1\t0.4730\n"
    "map_cut_20            \t1\t0.4730\n"
    "map_cut_30            \t1\t0.4730\n"
    "map_cut_100           \t1\t0.4730\n"
    "map_cut_200           \t1\t0.4730\n"
    "map_cut_500           \t1\t0.4730\n"
    "map_cut_1000          \t1\t0.4730\n"
    "relative_P_5          \t1\t0.6000\n"
    "relative_P_10         \t1\t0.6667\n"
    "relative_P_15         \t1\t0.6667\n"
    "relative_P_20         \t1\t0.6667\n"
    "relative_P_30         \t1\t0.6667\n"
    "relative_P_100        \t1\t0.6667\n"
    "relative_P_200        \t1\t0.6667\n"
    "relative_P_500        \t1\t0.6667\n"
    "relative_P_1000       \t1\t0.6667\n"
    "success_1             \t1\t1.0000\n"
    "success_5             \t1\t1.0000\n"
    "success_10            \t1\t1.0000\n"
    "set_P                 \t1\t0.5714\n"
    "set_relative_P        \t1\t0.6667\n"
    "set_recall            \t1\t0.6667\n"
    "set_map               \t1\t0.3810\n"
    "set_F                 \t1\t0.6154\n"
    "num_nonrel_judged_ret \t1\t0\n"
    "rbp                   \t1\t0.1514\n"
    "rbp_resid             \t1\t0.7002\n"
    "unj_5                 \t1\t0.4000\n"
    "unj_10                \t1\t0.3000\n"
    "unj_20                \t1\t0.1500\n"
    "num_ret               \t10\t7\n"
    "num_rel               \t10\t4\n"
    "num_rel_ret           \t10\t2\n"
    "map                   \t10\t0.1333\n"
    "Rprec                 \t10\t0.0000\n"
    "bpref                 \t10\t0.0000\n"
    "recip_rank            \t10\t0.2000\n"
    "iprec_at_recall_0.00  \t10\t0.3333\n"
    "iprec_at_recall_0.10  \t10\t0.3333\n"
    "iprec_at_recall_0.20  \t10\t0.3333\n"
    "iprec_at_recall_0.30  \t10\t0.3333\n"
    "iprec_at_recall_0.40  \t10\t0.3333\n"
    "iprec_at_recall_0.50  \t10\t0.3333\n"
    "iprec_at_recall_0.60  \t10\t0.3333\n"
    "iprec_at_recall_0.70  \t10\t0.0000\n"
    "iprec_at_recall_0.80  \t10\t0.0000\n"
    "iprec_at_recall_0.90  \t10\t0.0000\n"
    "iprec_at_recall_1.00  \t10\t0.0000\n"
    "P_5                   \t10\t0.2000\n"
    "P_10                  \t10\t0.2000\n"
    "P_15                  \t10\t0.1333\n"
    "P_20                  \t10\t0.1000\n"
    "P_30                  \t10\t0.0667\n"
    "P_100                 \t10\t0.0200\n"
    "P_200                 \t10\t0.0100\n"
    "P_500                 \t10\t0.0040\n"
    "P_1000                \t10\t0.0020\n"
    "relstring             \t10\t'-0--33-'\n"
    "recall_5              \t10\t0.2500\n"
    "recall_10             \t10\t0.5000\n"
    "recall_15             \t10\t0.5000\n"
    "recall_20             \t10\t0.5000\n"
    "recall_30             \t10\t0.5000\n"
    "recall_100            \t10\t0.5000\n"
    "recall_200            \t10\t0.5000\n"
    "recall_500            \t10\t0.5000\n"
    "recall_1000           \t10\t0.5000\n"
    "infAP                 \t10\t0.1333\n"
    "Rprec_mult_0.20       \t10\t0.0000\n"
    "Rprec_mult_0.40       \t10\t0.0000\n"
    "Rprec_mult_0.60       \t10\t0.0000\n"
    "Rprec_mult_0.80       \t10\t0.0000\n"
    "Rprec_mult_1.00       \t10\t0.0000\n"
    "Rprec_mult_1.20       \t10\t0.2000\n"
    "Rprec_mult_1.40       \t10\t0.3333\n"
    "Rprec_mult_1.60       \t10\t0.2857\n"
    "Rprec_mult_1.80       \t10\t0.2500\n"
    "Rprec_mult_2.00       \t10\t0.2500\n"
    "utility               \t10\t-3.0000\n"
    "11pt_avg              \t10\t0.2121\n"
    "binG                  \t10\t0.1934\n"
    "G                     \t10\t0.1649\n"
    "ndcg                  \t10\t0.3073\n"
    "ndcg_rel              \t10\t0.2705\n"
    "Rndcg                 \t10\t0.1024\n"
    "ndcg_cut_5            \t10\t0.1600\n"
    "ndcg_cut_10           \t10\t0.3073\n"
    "ndcg_cut_15           \t10\t0.3073\n"
    "ndcg_cut_20           \t10\t0.3073\n"
    "ndcg_cut_30           \t10\t0.3073\n"
    "ndcg_cut_100          \t10\t0.3073\n"
    "ndcg_cut_200          \t10\t0.3073\n"
    "ndcg_cut_500          \t10\t0.3073\n"
    "ndcg_cut_1000         \t10\t0.3073\n"
    "map_cut_5             \t10\t0.0500\n"
    "map_cut_10            \t10\t0.1333\n"
    "map_cut_15            \t10\t0.1333\n"
    "map_cut_20            \t10\t0.1333\n"
    "map_cut_30            \t10\t0.1333\n"
    "map_cut_100           \t10\t0.1333\n"
    "map_cut_200           \t10\t0.1333\n"
    "map_cut_500           \t10\t0.1333\n"
    "map_cut_1000          \t10\t0.1333\n"
    "relative_P_5          \t10\t0.2500\n"
    "relative_P_10         \t10\t0.5000\n"
    "relative_P_15         \t10\t0.5000\n"
    "relative_P_20         \t10\t0.5000\n"
    "relative_P_30         \t10\t0.5000\n"
    "relative_P_100        \t10\t0.5000\n"
    "relative_P_200        \t10\t0.5000\n"
    "relative_P_500        \t10\t0.5000\n"
    "relative_P_1000       \t10\t0.5000\n"
    "success_1             \t10\t0.0000\n"
    "success_5             \t10\t1.0000\n"
    "success_10            \t10\t1.0000\n"
    "set_P                 \t10\t0.2857\n"
    "set_relative_P        \t10\t0.5000\n"
    "set_recall            \t10\t0.5000\n"
    "set_map               \t10\t0.1429\n"
    "set_F                 \t10\t0.3636\n"
    "num_nonrel_judged_ret \t10\t1\n"
    "rbp                   \t10\t0.1247\n"
    "rbp_resid             \t10\t0.7853\n"
    "unj_5                 \t10\t0.6000\n"
    "unj_10                \t10\t0.4000\n"
    "unj_20                \t10\t0.2000\n"
    "num_ret               \t2\t0\n"
    "num_rel               \t2\t5\n"
    "num_rel_ret           \t2\t0\n"
    "map                   \t2\t0.0000\n"
    "Rprec                 \t2\t0.0000\n"
    "bpref                 \t2\t0.0000\n"
    "recip_rank            \t2\t0.0000\n"
    "iprec_at_recall_0.00  \t2\t0.0000\n"
    "iprec_at_recall_0.10  \t2\t0.0000\n"
    "iprec_at_recall_0.20  \t2\t0.0000\n"
    "iprec_at_recall_0.30  \t2\t0.0000\n"
    "iprec_at_recall_0.40  \t2\t0.0000\n"
    "iprec_at_recall_0.50  \t2\t0.0000\n"
    "iprec_at_recall_0.60  \t2\t0.0000\n"
    "iprec_at_recall_0.70  \t2\t0.0000\n"
    "iprec_at_recall_0.80  \t2\t0.0000\n"
    "iprec_at_recall_0.90  \t2\t0.0000\n"
    "iprec_at_recall_1.00  \t2\t0.0000\n"
    "P_5                   \t2\t0.0000\n"
    "P_10                  \t2\t0.0000\n"
    "P_15                  \t2\t0.0000\n"
    "P_20                  \t2\t0.0000\n"
    "P_30                  \t2\t0.0000\n"
    "P_100                 \t2\t0.0000\n"
    "P_200                 \t2\t0.0000\n"
    "P_500                 \t2\t0.0000\n"
    "P_1000                \t2\t0.0000\n"
    "relstring             \t2\t''\n"
    "recall_5              \t2\t0.0000\n"
    "recall_10             \t2\t0.0000\n"
    "recall_15             \t2\t0.0000\n"
    "recall_20             \t2\t0.0000\n"
    "recall_30             \t2\t0.0000\n"
    "recall_100            \t2\t0.0000\n"
    "recall_200            \t2\t0.0000\n"
    "recall_500            \t2\t0.0000\n"
    "recall_1000           \t2\t0.0000\n"
    "infAP                 \t2\t0.0000\n"
    "Rprec_mult_0.20       \t2\t0.0000\n"
    "Rprec_mult_0.40       \t2\t0.0000\n"
    "Rprec_mult_0.60       \t2\t0.0000\n"
    "Rprec_mult_0.80       \t2\t0.0000\n"
    "Rprec_mult_1.00       \t2\t0.0000\n"
    "Rprec_mult_1.20       \t2\t0.0000\n"
    "Rprec_mult_1.40       \t2\t0.0000\n"
    "Rprec_mult_1.60       \t2\t0.0000\n"
    "Rprec_mult_1.80       \t2\t0.0000\n"
    "Rprec_mult_2.00       \t2\t0.0000\n"
    "utility               \t2\t0.0000\n"
    "11pt_avg              \t2\t0.0000\n"
    "binG                  \t2\t0.0000\n"
    "G                     \t2\t0.0000\n"
    "ndcg                  \t2\t0.0000\n"
    "ndcg_rel              \t2\t0.0000\n"
    "Rndcg                 \t2\t0.0000\n"
    "ndcg_cut_5            \t2\t0.0000\n"
    "ndcg_cut_10           \t2\t0.0000\n"
    "ndcg_cut_15           \t2\t0.0000\n"
    "ndcg_cut_20           \t2\t0.0000\n"
    "ndcg_cut_30           \t2\t0.0000\n"
    "ndcg_cut_100          \t2\t0.0000\n"
    "ndcg_cut_200          \t2\t0.0000\n"
    "ndcg_cut_500          \t2\t0.0000\n"
    "ndcg_cut_1000         \t2\t0.0000\n"
    "map_cut_5             \t2\t0.0000\n"
    "map_cut_10            \t2\t0.0000\n"
    "map_cut_15            \t2\t0.0000\n"
    "map_cut_20            \t2\t0.0000\n"
    "map_cut_30            \t2\t0.0000\n"
    "map_cut_100           \t2\t0.0000\n"
    "map_cut_200           \t2\t0.0000\n"
    "map_cut_500           \t2\t0.0000\n"
    "map_cut_1000          \t2\t0.0000\n"
    "relative_P_5          \t2\t0.0000\n"
    "relative_P_10         \t2\t0.0000\n"
    "relative_P_15         \t2\t0.0000\n"
    "relative_P_20         \t2\t0.0000\n"
    "relative_P_30         \t2\t0.0000\n"
    "relative_P_100        \t2\t0.0000\n"
    "relative_P_200        \t2\t0.0000\n"
    "relative_P_500        \t2\t0.0000\n"
    "relative_P_1000       \t2\t0.0000\n"
    "success_1             \t2\t0.0000\n"
    "success_5             \t2\t0.0000\n"
    "success_10            \t2\t0.0000\n"
    "set_P                 \t2\t0.0000\n"
    "set_relative_P        \t2\t0.0000\n"
    "set_recall            \t2\t0.0000\n"
    "set_map               \t2\t0.0000\n"
    "set_F                 \t2\t0.0000\n"
    "num_nonrel_judged_ret \t2\t0\n"
    "rbp                   \t2\t0.0000\n"
    "rbp_resid             \t2\t0.0000\n"
    "unj_5                 \t2\t0.0000\n"
    "unj_10                \t2\t0.0000\n"
    "unj_20                \t2\t0.0000\n"
    "runid                 \tall\trunB\n"
    "num_q                 \tall\t3\n"
    "num_ret               \tall\t14\n"
    "num_rel               \tall\t15\n"
    "num_rel_ret           \tall\t6\n"
    "map                   \tall\t0.2021\n"
    "gm_map                \tall\t0.0086\n"
    "Rprec                 \tall\t0.1667\n"
    "bpref                 \tall\t0.2222\n"
    "recip_rank            \tall\t0.4000\n"
    "iprec_at_recall_0.00  \tall\t0.4444\n"
    "iprec_at_recall_0.10  \tall\t0.4444\n"
    "iprec_at_recall_0.20  \tall\t0.4444\n"
    "iprec_at_recall_0.30  \tall\t0.3333\n"
    "iprec_at_recall_0.40  \tall\t0.3333\n"
    "iprec_at_recall_0.50  \tall\t0.3111\n"
    "iprec_at_recall_0.60  \tall\t0.3016\n"
    "iprec_at_recall_0.70  \tall\t0.1905\n"
    "iprec_at_recall_0.80  \tall\t0.0000\n"
    "iprec_at_recall_0.90  \tall\t0.0000\n"
    "iprec_at_recall_1.00  \tall\t0.0000\n"
    "P_5                   \tall\t0.2667\n"
    "P_10                  \tall\t0.2000\n"
    "P_15                  \tall\t0.1333\n"
    "P_20                  \tall\t0.1000\n"
    "P_30                  \tall\t0.0667\n"
    "P_100                 \tall\t0.0200\n"
    "P_200                 \tall\t0.0100\n"
    "P_500                 \tall\t0.0040\n"
    "P_1000                \tall\t0.0020\n"
    "recall_5              \tall\t0.2500\n"
    "recall_10             \tall\t0.3889\n"
    "recall_15             \tall\t0.3889\n"
    "recall_20             \tall\t0.3889\n"
    "recall_30             \tall\t0.3889\n"
    "recall_100            \tall\t0.3889\n"
    "recall_200            \tall\t0.3889\n"
    "recall_500            \tall\t0.3889\n"
    "recall_1000           \tall\t0.3889\n"
    "infAP                 \tall\t0.2021\n"
    "gm_bpref              \tall\t0.0004\n"
    "Rprec_mult_0.20       \tall\t0.1667\n"
    "Rprec_mult_0.40       \tall\t0.2222\n"
    "Rprec_mult_0.60       \tall\t0.1667\n"
    "Rprec_mult_0.80       \tall\t0.2000\n"
    "Rprec_mult_1.00       \tall\t0.1667\n"
    "Rprec_mult_1.20       \tall\t0.2333\n"
    "Rprec_mult_1.40       \tall\t0.2593\n"
    "Rprec_mult_1.60       \tall\t0.2286\n"
    "Rprec_mult_1.80       \tall\t0.2045\n"
    "Rprec_mult_2.00       \tall\t0.1944\n"
    "utility               \tall\t-0.6667\n"
    "11pt_avg              \tall\t0.2548\n"
    "binG                  \tall\t0.2068\n"
    "G                     \tall\t0.1194\n"
    "ndcg                  \tall\t0.2463\n"
    "ndcg_rel              \tall\t0.2076\n"
    "Rndcg                 \tall\t0.1172\n"
    "ndcg_cut_5            \tall\t0.1543\n"
    "ndcg_cut_10           \tall\t0.2463\n"
    "ndcg_cut_15           \tall\t0.2463\n"
    "ndcg_cut_20           \tall\t0.2463\n"
    "ndcg_cut_30           \tall\t0.2463\n"
    "ndcg_cut_100          \tall\t0.2463\n"
    "ndcg_cut_200          \tall\t0.2463\n"
    "ndcg_cut_500          \tall\t0.2463\n"
    "ndcg_cut_1000         \tall\t0.2463\n"
    "map_cut_5             \tall\t0.1426\n"
    "map_cut_10            \tall\t0.2021\n"
    "map_cut_15            \tall\t0.2021\n"
    "map_cut_20            \tall\t0.2021\n"
    "map_cut_30            \tall\t0.2021\n"
    "map_cut_100           \tall\t0.2021\n"
    "map_cut_200           \tall\t0.2021\n"
    "map_cut_500           \tall\t0.2021\n"
    "map_cut_1000          \tall\t0.2021\n"
    "relative_P_5          \tall\t0.2833\n"
    "relative_P_10         \tall\t0.3889\n"
    "relative_P_15         \tall\t0.3889\n"
    "relative_P_20         \tall\t0.3889\n"
    "relative_P_30         \tall\t0.3889\n"
    "relative_P_100        \tall\t0.3889\n"
    "relative_P_200        \tall\t0.3889\n"
    "relative_P_500        \tall\t0.3889\n"
    "relative_P_1000       \tall\t0.3889\n"
    "success_1             \tall\t0.3333\n"
    "success_5             \tall\t0.6667\n"
    "success_10            \tall\t0.6667\n"
    "set_P                 \tall\t0.2857\n"
    "set_relative_P        \tall\t0.3889\n"
    "set_recall            \tall\t0.3889\n"
    "set_map               \tall\t0.1746\n"
    "set_F                 \tall\t0.3263\n"
    "num_nonrel_judged_ret \tall\t1\n"
    "rbp                   \tall\t0.0920\n"
    "rbp_resid             \tall\t0.4952\n"
    "unj_5                 \tall\t0.3333\n"
    "unj_10                \tall\t0.2333\n"
    "unj_20                \tall\t0.1167\n"
)


def test_hostile_collection_all_trec(tmp_path, capsys):
    """Every line of trec_eval's output, relstring's among them (query 2,
    judged only, prints '' under -c: trec_eval.c, main, clear_relstr),
    with nothing left out on standard error."""
    qrels, run = _write(tmp_path, BIG_QRELS, BIG_RUN)
    out, err = _skrank(capsys, qrels, run, "-q", "--queries", "qrels", "-m", "all_trec")
    assert out == BIG_OUTPUT
    assert err == ""


# -- relstring: a string per query --------------------------------------------

# Ties (a, b at 1; c, d, e at 0.5; h, i, j at 0.1), documents outside the
# judgments (zz, e, i, j, k), a judgment -1 (c), grades above 9 (d 12, h 10),
# a query of fewer than 10 documents whose -1 document ties a judged one
# (q2), a judged query the run misses (q3) and a run query without
# judgments (q4).
RELSTRING_QRELS = (
    "q1 0 a 1\nq1 0 b 0\nq1 0 c -1\nq1 0 d 12\nq1 0 f 3\nq1 0 g 9\n"
    "q1 0 h 10\nq2 0 x 2\nq2 0 y -1\nq3 0 z 1\n"
)


RELSTRING_RUN = (
    "q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\nq1 Q0 c 3 0.5 r\nq1 Q0 d 4 0.5 r\n"
    "q1 Q0 e 5 0.5 r\nq1 Q0 zz 6 2 r\nq1 Q0 f 7 0.25 r\nq1 Q0 g 8 0.2 r\n"
    "q1 Q0 h 9 0.1 r\nq1 Q0 i 10 0.1 r\nq1 Q0 j 11 0.1 r\nq1 Q0 k 12 0.05 r\n"
    "q2 Q0 y 1 3 r\nq2 Q0 x 2 3 r\nq4 Q0 x 1 1 r\n"
)


@pytest.mark.parametrize(
    "args, expected",
    [
        # trec_eval -q -c -m relstring qrels run
        # m_relstring.c, te_calc_relstring: the first 10 documents, ties by
        # id descending (zz; b a; e d c; ...); '-' outside the judgments,
        # '>' above 9, '.' for -1 (form_res_rels.c reads every negative
        # judgment as RELVALUE_UNJUDGED); q2 has 2 documents; q3, missed,
        # is cleared to '' (trec_eval.c, main, clear_relstr)
        (
            ["-q", "--queries", "qrels", "-m", "relstring"],
            "relstring             \tq1\t'-01->.39--'\n"
            "relstring             \tq2\t'.2'\n"
            "relstring             \tq3\t''\n",
        ),
        # trec_eval -q -c -m relstring.12 -m relstring.3 qrels run
        # the first parameters win, printed as written; the clearing of a
        # missed query matches the name "relstring" only, so q3 shows its
        # placeholder document (not judged: '-')
        (
            ["-q", "--queries", "qrels", "-m", "relstring.12", "-m", "relstring.3"],
            "relstring_12          \tq1\t'-01->.39-->-'\n"
            "relstring_12          \tq2\t'.2'\n"
            "relstring_12          \tq3\t'-'\n",
        ),
        # trec_eval -q -c -m relstring.1,5 -m num_ret qrels run
        # (get_double_params: the length is the first value)
        (
            ["-q", "--queries", "qrels", "-m", "relstring.1,5", "-m", "num_ret"],
            "num_ret               \tq1\t12\n"
            "relstring_1,5         \tq1\t'-'\n"
            "num_ret               \tq2\t2\n"
            "relstring_1,5         \tq2\t'.'\n"
            "num_ret               \tq3\t0\n"
            "relstring_1,5         \tq3\t'-'\n"
            "num_ret               \tall\t14\n",
        ),
        # trec_eval -q -c -l 2 -m relstring -m P.2 qrels run
        # relstring ignores -l; it has no summary line (te_print_relstring)
        (
            ["-q", "--queries", "qrels", "-l", "2", "-m", "relstring", "-m", "P.2"],
            "P_2                   \tq1\t0.0000\n"
            "relstring             \tq1\t'-01->.39--'\n"
            "P_2                   \tq2\t0.5000\n"
            "relstring             \tq2\t'.2'\n"
            "P_2                   \tq3\t0.0000\n"
            "relstring             \tq3\t''\n"
            "P_2                   \tall\t0.1667\n",
        ),
        # trec_eval -c -m relstring -m P.2 qrels run: no -q, no relstring
        (
            ["--queries", "qrels", "-m", "relstring", "-m", "P.2"],
            "P_2                   \tall\t0.1667\n",
        ),
        # trec_eval -q -c -m relstring.0 qrels run (and relstring.-2 alike:
        # a length below 1 prints '')
        (
            ["-q", "--queries", "qrels", "-m", "relstring.0"],
            "relstring_0           \tq1\t''\n"
            "relstring_0           \tq2\t''\n"
            "relstring_0           \tq3\t''\n",
        ),
    ],
)
def test_relstring(tmp_path, capsys, args, expected):
    qrels, run = _write(tmp_path, RELSTRING_QRELS, RELSTRING_RUN)
    out, err = _skrank(capsys, qrels, run, *args)
    assert out == expected
    assert err == ""


def test_relstring_trec_eval9(tmp_path, capsys):
    """trec_eval 9 prints the run's queries only (trec_eval.c, main)."""
    qrels, run = _write(tmp_path, RELSTRING_QRELS, RELSTRING_RUN)
    # trec_eval 9.0.7: trec_eval -q -c -m relstring.3 -m P.2 qrels run
    args = ["-q", "--queries", "qrels", "-m", "relstring.3", "-m", "P.2"]
    out, _ = _skrank(capsys, qrels, run, *args, "--convention", "trec_eval9")
    assert out == (
        "P_2                   \tq1\t0.0000\n"
        "relstring_3           \tq1\t'-01'\n"
        "P_2                   \tq2\t0.5000\n"
        "relstring_3           \tq2\t'.2'\n"
        "P_2                   \tall\t0.1667\n"
    )


def test_relstring_is_refused_where_it_cannot_be_written(tmp_path, capsys):
    """A length whose conversion to long C leaves undefined is refused
    (m_relstring.c, te_calc_relstring); relstring exists in trec_eval's
    output only."""
    qrels, run = _write(tmp_path, RELSTRING_QRELS, RELSTRING_RUN)
    status = main(
        ["evaluate", str(qrels), str(run), "-q", "-m", "relstring.inf"]
        + ["--format", "trec_eval"]
    )
    _, err = capsys.readouterr()
    assert status == 2
    assert "m_relstring.c" in err
    assert "'relstring.inf'" in err
    status = main(["evaluate", str(qrels), str(run), "-m", "relstring"])
    _, err = capsys.readouterr()
    assert status == 2 and "relstring" in err


def test_all_trec_under_trec_eval9(tmp_path, capsys):
    """trec_eval 9.0.7's all_trec (its measures.c, trec_names) has no rbp,
    rbp_resid or unj; its other lines are trec_eval 10's here."""
    qrels, run = _write(tmp_path, RELSTRING_QRELS, RELSTRING_RUN)
    # trec_eval 9.0.7: trec_eval -c -m all_trec qrels run, its last lines
    # (trec_eval 10 prints rbp, rbp_resid and unj_* after these); 94 lines
    # in all (trec_eval -c -m all_trec qrels run | wc -l)
    out, _ = _skrank(
        capsys,
        qrels,
        run,
        "--queries",
        "qrels",
        "-m",
        "all_trec",
        "--convention",
        "trec_eval9",
    )
    assert out.endswith(
        "success_10            \tall\t0.6667\n"
        "set_P                 \tall\t0.3056\n"
        "set_relative_P        \tall\t0.6667\n"
        "set_recall            \tall\t0.6667\n"
        "set_map               \tall\t0.3056\n"
        "set_F                 \tall\t0.4183\n"
        "num_nonrel_judged_ret \tall\t1\n"
    )
    assert out.count("\n") == 94
    assert "rbp" not in out and "unj" not in out
