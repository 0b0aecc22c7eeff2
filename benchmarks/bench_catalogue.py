"""ERR@10 and infAP on 2 million rows: skrank against pytrec_eval and ir_measures.

Data (one process, every tool on the same data): a TREC run of 20,000
queries x 100 retrieved documents (2,000,000 rows, rows shuffled) and qrels
that judge about 40 of the retrieved documents of each query with grades
0-3 (more often, and more relevant, near the top), mark about 6 more as
pooled but not assessed (relevance -1, which only infAP reads) and add 5
relevant documents the run missed and 10 judged non-relevant ones it did not
retrieve; the other retrieved documents are unjudged. Scores have two
decimals, so about 7% of the documents tie with another of their query.
Query ids are numbers (gdeval requires it), document ids are shared across
queries as in a real collection.

Rows of the tables:

* skrank ``skrank.trec.evaluate_run(qrels, run, [metric])`` on ``Qrels`` /
  ``Run`` objects built once (``read_qrels`` / ``read_run`` of DataFrames),
  with ``ties="trec_eval"`` (the peers' order: document id descending within
  a tie) and with the default tie-averaging rule. ``read_qrels`` builds the
  sorted index of the qrels' keys (with a hash set of them and their
  document ids in index order) and ``read_run`` groups the run's rows by
  query and checks that no document is given twice by sorting the key
  values of a slice of whole queries at a time, as pytrec_eval's evaluator
  is built from the qrels once. That work is in the
  row "read_qrels + read_run (DataFrames), build", not in the evaluation
  rows: the row "first call" times the first ``evaluate_run`` of a ``Qrels``
  and a ``Run`` just read, the row "new Run, Qrels reused" a ``Run`` just
  read evaluated against qrels evaluated before (as pytrec_eval's prebuilt
  evaluator meets a new run), and the row "read_run + evaluate_run, Qrels
  reused" both steps of a new run from its DataFrame.
  ``evaluate_run`` on the DataFrames and on the nested dicts the peers take
  are rows of their own;
* the numpy floor: ``np.lexsort`` of the run by query, then score;
* pytrec_eval (infAP; it has no ERR): ``RelevanceEvaluator(qrels, {"infAP"})``
  and ``evaluate(run)`` on prebuilt dicts, and ``evaluate`` alone on a
  prebuilt evaluator; building the dicts from the arrays is a row of its own;
* ir_measures: ``calc_aggregate([measure], qrels, run)`` on the same dicts
  and ``evaluator([measure], qrels).calc_aggregate(run)`` on a prebuilt
  evaluator. It computes infAP with pytrec_eval and ERR@10 with gdeval, a
  perl script it runs on temporary files; by default gdeval runs on every
  query (about half a minute a run on 2 million rows, three minutes with
  the memory runs). ``--gdeval-queries 2000`` runs it on the first 2,000
  queries (200,000 rows) only, puts skrank on that same subset in its table
  and extrapolates gdeval's 2-million-row time linearly, labelled so.

ranx has neither ERR nor infAP. Time is the best of ``--repeat`` runs for
skrank and numpy and of ``--peer-repeat`` runs for the peers; memory is
``_harness.measure``'s tracemalloc peak (it does not see pytrec_eval's C++
allocations nor perl's). The agreement of the values is checked per query:
skrank's infAP with ``ties="trec_eval"`` and ``score_dtype="float32"`` (the
precision trec_eval 9 and pytrec_eval hold scores in) against pytrec_eval's,
and skrank's ERR@10 against gdeval's, which prints five decimals. The
target: skrank at least 5x faster than ir_measures and pytrec_eval.

Usage: ``python benchmarks/bench_catalogue.py [--queries 20000] [--depth 100]``
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
import warnings

import numpy as np
from _harness import measure, print_table

from skrank.trec import evaluate_run, read_qrels, read_run


def make_data(n_q, depth, seed=0):
    """Run and qrels as column arrays (query ids as int, documents as str)."""
    rng = np.random.default_rng(seed)
    n = n_q * depth
    q = np.repeat(np.arange(n_q), depth)
    rank = np.tile(np.arange(depth), n_q)
    # distinct documents within a query, shared across queries
    doc = (q * 7919 + rng.permutation(n)) % 5_000_000
    # BM25-like scores with two decimals, decreasing with the rank
    raw = 12.0 + 4.0 * rng.standard_normal((n_q, depth))
    score = np.round(-np.sort(-np.abs(raw), axis=1), 2).ravel()
    top = 1.0 - rank / depth
    u = rng.random(n)
    judged = u < 0.2 + 0.4 * top
    pooled = ~judged & (u < 0.26 + 0.4 * top)
    p_rel = 0.15 + 0.55 * top
    grade = (rng.random(n) < p_rel) * rng.integers(1, 4, n)
    run = {"qid": q, "docno": doc, "score": score}
    rel = np.where(judged, grade, -1)
    keep = judged | pooled
    # relevant (5) and judged non-relevant (10) documents not retrieved
    n_extra = 15
    eq = np.repeat(np.arange(n_q), n_extra)
    edoc = 5_000_000 + np.arange(n_q * n_extra)
    erel = np.tile(np.r_[rng.integers(1, 4, 5), np.zeros(10, int)], n_q)
    qrels = {
        "qid": np.r_[q[keep], eq],
        "docno": np.r_[doc[keep], edoc],
        "relevance": np.r_[rel[keep], erel],
    }
    perm = rng.permutation(n)
    run = {k: v[perm] for k, v in run.items()}
    perm = rng.permutation(qrels["qid"].size)
    qrels = {k: v[perm] for k, v in qrels.items()}
    return qrels, run


def with_names(cols, value):
    """Columns with query ids and document ids as the strings of the files."""
    return {
        "qid": (cols["qid"] + 100_000).astype(str).astype(object),
        "docno": np.char.add("D", np.char.zfill(cols["docno"].astype(str), 8)).astype(
            object
        ),
        value: cols[value],
    }


def to_dict(cols, value, cast):
    """{qid: {docno: value}}, as pytrec_eval and ir_measures take them."""
    order = np.argsort(cols["qid"], kind="stable")
    q = cols["qid"][order]
    bounds = np.flatnonzero(q[1:] != q[:-1]) + 1
    starts = np.r_[0, bounds]
    docs = np.split(cols["docno"][order], bounds)
    vals = np.split(cols[value][order].astype(cast), bounds)
    return {
        name: dict(zip(d.tolist(), v.tolist(), strict=True))
        for name, d, v in zip(q[starts].tolist(), docs, vals, strict=True)
    }


def measure_new(build, func, repeat):
    """``measure(func(obj))`` with a new ``obj = build()`` for every run,
    built outside the timed part (and outside the memory peak)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        obj = build()
        gc.collect()
        start = time.perf_counter()
        result = func(obj)
        best = min(best, time.perf_counter() - start)
        del obj
    obj = build()
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    func(obj)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak - base, result


def max_diff(qid_a, val_a, per_b):
    """Max |a - b| over the queries of a, b given as {qid: value}."""
    b = np.array([per_b[q] for q in qid_a.tolist()], dtype=float)
    return float(np.max(np.abs(np.asarray(val_a, dtype=float) - b)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-repeat", type=int, default=1)
    parser.add_argument("--gdeval-queries", type=int, default=None)
    args = parser.parse_args(argv)
    rep, prep = args.repeat, args.peer_repeat

    t0 = time.perf_counter()
    qcols, rcols = make_data(args.queries, args.depth)
    qn, rn = with_names(qcols, "relevance"), with_names(rcols, "score")
    n_run, n_qrels = rcols["qid"].size, qcols["qid"].size
    rel = qcols["relevance"]
    s = rcols["score"]
    order = np.lexsort((-s, rcols["qid"]))
    qs, ss = rcols["qid"][order], s[order]
    tied = np.zeros(n_run, bool)
    same = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    tied[1:] |= same
    tied[:-1] |= same
    judged_ret = np.isin(
        rcols["qid"] * 10_000_000 + rcols["docno"],
        qcols["qid"][rel >= 0] * 10_000_000 + qcols["docno"][rel >= 0],
    )
    print(
        f"run: {n_run:,} rows ({args.queries:,} queries x {args.depth}), "
        f"{tied.mean():.1%} of them tied with another document of their query, "
        f"{judged_ret.mean():.1%} judged; qrels: {n_qrels:,} rows "
        f"({(rel < 0).mean():.1%} pooled-unassessed -1, "
        f"{(rel > 0).mean():.1%} relevant); generated in "
        f"{time.perf_counter() - t0:.1f} s"
    )

    import pandas as pd

    qdf, rdf = pd.DataFrame(qn), pd.DataFrame(rn)
    t0 = time.perf_counter()
    Q, R = read_qrels(qdf), read_run(rdf)
    print(
        "skrank Qrels/Run built from the DataFrames in "
        f"{time.perf_counter() - t0:.2f} s"
    )
    t0 = time.perf_counter()
    qrels_d = to_dict(qn, "relevance", int)
    run_d = to_dict(rn, "score", float)
    print(f"peers' dicts built in {time.perf_counter() - t0:.2f} s")

    import ir_measures
    import pytrec_eval

    versions = {
        "pytrec_eval-terrier": _version("pytrec_eval-terrier"),
        "ir_measures": _version("ir_measures"),
        "ranx": _version("ranx"),
        "numpy": np.__version__,
        "pandas": pd.__version__,
    }
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    for m in (ir_measures.ERR @ 10, ir_measures.infAP):
        prov = [
            p.NAME for p in ir_measures.providers.registry.values() if p.supports(m)
        ]
        print(f"ir_measures providers for {m}: {prov}")
    try:
        import ranx.metrics as rm

        has = [n for n in dir(rm) if "err" in n.lower() or "inf" in n.lower()]
        print(f"ranx metrics named err/inf*: {has or 'none'}")
    except ImportError:
        pass

    def floor():
        return np.lexsort((-s, rcols["qid"]))

    floor_row = (
        "numpy floor: lexsort by query, then score",
        *measure(floor, rep)[:2],
        None,
    )

    sec, peak, _ = measure(lambda: (read_qrels(qdf), read_run(rdf)), prep)
    build_row = ("skrank read_qrels + read_run (DataFrames), build", sec, peak, None)

    def sk_rows(metric, extra=None):
        rows, per = [], {}
        for ties in ("trec_eval", "average"):
            kw = {"ties": ties, **(extra or {})}
            sec, peak, res = measure(
                lambda kw=kw: evaluate_run(Q, R, [metric], **kw), rep
            )
            rows.append((f"skrank evaluate_run, ties={ties!r}", sec, peak, res[metric]))
            _, per[ties] = evaluate_run(Q, R, [metric], return_per_query=True, **kw)
            print(
                f"  skrank {metric} ties={ties}: {res[metric]:.6f} ({sec:.2f} s)",
                flush=True,
            )
        kw = {"ties": "trec_eval", **(extra or {})}
        sec, peak, res = measure_new(
            lambda: (read_qrels(qdf), read_run(rdf)),
            lambda QR: evaluate_run(*QR, [metric], **kw),
            rep,
        )
        rows.append(
            ("skrank evaluate_run, trec_eval, first call", sec, peak, res[metric])
        )
        sec, peak, res = measure_new(
            lambda: read_run(rdf), lambda R2: evaluate_run(Q, R2, [metric], **kw), rep
        )
        rows.append(
            ("skrank evaluate_run, trec_eval, new Run, Qrels reused", sec, peak,
             res[metric])
        )  # fmt: skip
        sec, peak, res = measure(
            lambda: evaluate_run(Q, read_run(rdf), [metric], **kw), rep
        )
        rows.append(
            ("skrank read_run + evaluate_run, trec_eval, Qrels reused", sec, peak,
             res[metric])
        )  # fmt: skip
        rows.append(build_row)
        sec, peak, res = measure(lambda: evaluate_run(qdf, rdf, [metric], **kw), prep)
        rows.append(
            ("skrank evaluate_run from DataFrames, trec_eval", sec, peak, res[metric])
        )
        sec, peak, res = measure(
            lambda: evaluate_run(qrels_d, run_d, [metric], **kw), 1
        )
        rows.append(
            ("skrank evaluate_run from the dicts, trec_eval", sec, peak, res[metric])
        )
        return rows, per

    # ------------------------------------------------------------------ infAP
    print("\ninfAP", flush=True)
    rows, per = sk_rows("infAP", {"score_dtype": "float32"})
    rows.insert(4, floor_row)

    def trec_dicts():
        return to_dict(qn, "relevance", int), to_dict(rn, "score", float)

    sec, peak, _ = measure(trec_dicts, prep)
    dict_row = ("peers' dicts from the arrays (setup)", sec, peak, None)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_d, {"infAP"})
    sec, peak, pt = measure(lambda: evaluator.evaluate(run_d), prep)
    pt_mean = float(np.mean([v["infAP"] for v in pt.values()]))
    rows.append(("pytrec_eval evaluate (prebuilt evaluator)", sec, peak, pt_mean))
    sec, peak, _ = measure(
        lambda: pytrec_eval.RelevanceEvaluator(qrels_d, {"infAP"}).evaluate(run_d), prep
    )
    rows.append(("pytrec_eval RelevanceEvaluator + evaluate", sec, peak, pt_mean))
    print(f"  pytrec_eval infAP: {pt_mean:.6f} ({sec:.2f} s)", flush=True)
    M = ir_measures.infAP
    sec, peak, res = measure(
        lambda: ir_measures.calc_aggregate([M], qrels_d, run_d), prep
    )
    rows.append(
        ("ir_measures calc_aggregate (pytrec_eval provider)", sec, peak, float(res[M]))
    )
    ev = ir_measures.evaluator([M], qrels_d)
    sec, peak, res = measure(lambda: ev.calc_aggregate(run_d), prep)
    rows.append(
        ("ir_measures prebuilt evaluator.calc_aggregate", sec, peak, float(res[M]))
    )
    print(f"  ir_measures infAP: {float(res[M]):.6f} ({sec:.2f} s)", flush=True)
    rows.append(dict_row)
    print_table(
        f"infAP, {n_run:,} run rows, {n_qrels:,} qrels rows",
        rows,
        "skrank evaluate_run, ties='trec_eval'",
    )
    pt_q = {str(k): v["infAP"] for k, v in pt.items()}
    d = max_diff(per["trec_eval"].qid, per["trec_eval"]["infAP"], pt_q)
    im_q = {m.query_id: m.value for m in ir_measures.iter_calc([M], qrels_d, run_d)}
    d2 = max_diff(per["trec_eval"].qid, per["trec_eval"]["infAP"], im_q)
    d3 = float(np.max(np.abs(per["trec_eval"]["infAP"] - per["average"]["infAP"])))
    print(
        f"per query, {len(pt_q):,} queries: max |skrank(trec_eval, float32) - "
        f"pytrec_eval| = {d:.3g}; - ir_measures = {d2:.3g} (check: <= 1e-9 "
        f"{'holds' if max(d, d2) <= 1e-9 else 'FAILS'}); tie-averaged vs "
        f"trec_eval order: max {d3:.3g}"
    )
    infap_rows = rows

    # ------------------------------------------------------------------ ERR@10
    print("\nERR@10", flush=True)
    ref = "skrank evaluate_run, ties='trec_eval'"
    rows, per = sk_rows("ERR@10")
    rows.insert(4, floor_row)
    n_sub = min(args.gdeval_queries or args.queries, args.queries)
    whole = n_sub == args.queries
    M = ir_measures.ERR @ 10
    if whole:
        qrels_s, run_s, n_run_s, srows, per_s = qrels_d, run_d, n_run, rows, per
    else:
        print_table(f"ERR@10, {n_run:,} run rows (skrank only)", rows, ref)
        sub_q = np.arange(n_sub)
        keep_q, keep_r = np.isin(qcols["qid"], sub_q), np.isin(rcols["qid"], sub_q)
        Qs, Rs = read_qrels(qdf[keep_q]), read_run(rdf[keep_r])
        names = {str(q + 100_000) for q in sub_q.tolist()}
        qrels_s = {k: v for k, v in qrels_d.items() if k in names}
        run_s = {k: v for k, v in run_d.items() if k in names}
        n_run_s = int(keep_r.sum())
        srows, per_s = [], {}
        for ties in ("trec_eval", "average"):
            sec, peak, res = measure(
                lambda t=ties: evaluate_run(Qs, Rs, ["ERR@10"], ties=t), rep
            )
            srows.append(
                (f"skrank evaluate_run, ties={ties!r}", sec, peak, res["ERR@10"])
            )
            _, per_s[ties] = evaluate_run(
                Qs, Rs, ["ERR@10"], ties=ties, return_per_query=True
            )
        s_sub, q_sub = s[keep_r], rcols["qid"][keep_r]
        sec, peak, _ = measure(lambda: np.lexsort((-s_sub, q_sub)), rep)
        srows.append(("numpy floor: lexsort by query, then score", sec, peak, None))
    t0 = time.perf_counter()
    sec, peak, res = measure(
        lambda: ir_measures.calc_aggregate([M], qrels_s, run_s), prep
    )
    im_err = float(res[M])
    srows.append(("ir_measures calc_aggregate (gdeval provider)", sec, peak, im_err))
    ev = ir_measures.evaluator([M], qrels_s)
    sec_ev, peak, res = measure(lambda: ev.calc_aggregate(run_s), prep)
    srows.append(
        ("ir_measures prebuilt evaluator.calc_aggregate", sec_ev, peak, float(res[M]))
    )
    print(
        f"  ir_measures ERR@10 on {n_run_s:,} rows: {im_err:.6f} ({sec:.2f} s; "
        f"{time.perf_counter() - t0:.0f} s with the memory runs)",
        flush=True,
    )
    im_q = {m.query_id: m.value for m in ev.iter_calc(run_s)}
    print_table(
        f"ERR@10, {n_run_s:,} run rows"
        + ("" if whole else f" (subset: the first {n_sub:,} queries; same data)"),
        srows,
        ref,
    )
    d = max_diff(per_s["trec_eval"].qid, per_s["trec_eval"]["ERR@10"], im_q)
    d3 = np.abs(per["trec_eval"]["ERR@10"] - per["average"]["ERR@10"]).max()
    print(
        f"per query, {len(im_q):,} queries: max |skrank(trec_eval) - gdeval| = "
        f"{d:.3g} (gdeval prints 5 decimals: check <= 5e-6 "
        f"{'holds' if d <= 5.0000001e-6 else 'FAILS'}); tie-averaged vs trec_eval "
        f"order: max {float(d3):.3g}"
    )
    if not whole:
        ext = sec * n_run / n_run_s
        ours = rows[0][1]
        print(
            f"EXTRAPOLATED (linear, x{n_run / n_run_s:.1f}), not measured: "
            f"ir_measures/gdeval ERR@10 on {n_run:,} rows ~ {ext:.1f} s = "
            f"{ext / ours:.0f}x skrank's measured {ours:.2f} s (trec_eval ties)"
        )

    # ------------------------------------------------------------------ target
    print("\ntarget: skrank at least 5x faster than ir_measures and pytrec_eval")
    for title, table in (("infAP", infap_rows), ("ERR@10", srows)):
        ref_te, ref_avg = table[0][1], table[1][1]
        cold = [r[1] for r in table if r[0].endswith("first call")]
        new_run = [r[1] for r in table if r[0].endswith("new Run, Qrels reused")]
        read_new = [r[1] for r in table if r[0].startswith("skrank read_run +")]
        for name, sec, *_ in table:
            if name.startswith(("pytrec_eval", "ir_measures")):
                first = f", {sec / cold[0]:6.1f}x its first call" if cold else ""
                if new_run:
                    first += f", {sec / new_run[0]:6.1f}x a new Run"
                if read_new:
                    first += f", {sec / read_new[0]:6.1f}x read_run + a new Run"
                holds = min(sec / ref_te, sec / ref_avg) >= 5
                print(
                    f"  {title}: {name}: {sec / ref_te:6.1f}x skrank (trec_eval "
                    f"ties), {sec / ref_avg:6.1f}x skrank (tie-averaged){first} "
                    f"-> {'holds' if holds else 'MISSED'}"
                )


def _version(dist):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main()
