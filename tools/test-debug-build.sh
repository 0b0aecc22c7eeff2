#!/usr/bin/env bash
# The compiled kernels built with Cython's bounds, wrap-around and
# initialisation checks on and with AddressSanitizer and
# UndefinedBehaviorSanitizer (SKRANK_DEBUG_BUILD=1, see setup.py), into
# build/debug; then the kernel, property, input-form and fuzz tests run on
# that build. Any out-of-bounds access, overflow or undefined behaviour in a
# kernel stops the run. Needs gcc (or clang) with the sanitizer runtimes and
# the test extra installed in $PYTHON's environment (default .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[[ "$PY" = /* ]] || PY="$PWD/$PY"
rm -rf build/debug
SKRANK_DEBUG_BUILD=1 "$PY" setup.py -q build --build-lib build/debug \
    --build-temp build/debug-temp
ASAN_LIB=$(${CC:-gcc} -print-file-name=libasan.so)
cd tests
PYTHONPATH=../build/debug \
LD_PRELOAD="$ASAN_LIB" \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
SKRANK_DEBUG_BUILD=1 \
    "$PY" -m pytest -c ../setup.cfg -q -p no:cacheprovider \
    engine measures/test_kernels.py measures/test_trec_kernels.py measures/test_err.py measures/test_iprec.py \
    measures/test_ap.py \
    common/test_properties.py \
    common/test_input_forms.py common/test_ties.py trec/test_readers_fuzz.py \
    trec/test_parse_kernel.py trec/test_dict_kernel.py trec/test_group_table.py \
    names/test_grammar_fuzz.py recsys/test_selection_speed_paths.py \
    fusion/test_fusion_kernels.py fusion/test_fusion_reductions.py fusion/test_fusion_join.py \
    fusion/test_fusion_sorted_ranks.py \
    metrics/test_trec_eval.py::test_gains_of_g_ndcg_rel_and_r_ndcg_match_brute_force \
    metrics/test_trec_eval.py::test_g_compiled_loop_equals_the_enumeration_of_compositions \
    metrics/test_trec_eval.py::test_g_under_ties_by_hand_and_its_limit \
    compare/test_resampling_counts.py test_aggregate.py test_validation.py \
    test_validation_ids.py "$@"
