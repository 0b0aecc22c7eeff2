"""Exact ranking evaluation past one machine: Dask and Spark from Parquet.

Writes ``--rows`` rows of (qid, doc, y_true, y_score) as Parquet files of
``--file-rows`` rows each, the rows of every query scattered over all files
(query sizes from 1 to 5,000 rows), then:

* **Dask**: ``skrank.dask.evaluate`` on ``dask.dataframe.read_parquet`` with a
  ``dask.distributed.LocalCluster`` of ``--workers`` processes (one thread
  each): rows/s and the peak resident memory of each worker process.
* **Spark** (``local[2]``): ``pyspark.ml.evaluation.RankingEvaluator``
  (MAP@k and nDCG@k; its input lists built by Spark from the rows with
  ``groupBy`` and ``collect_list``) against ``skrank.spark.evaluate`` with
  ``convention="spark"`` on the same rows, side by side: values and times.
  Scores are continuous (no ties) and relevance binary (Spark's evaluator
  takes sets of relevant items), so that Spark's ranked lists are
  unambiguous and both give the same numbers.
* ``--check``: per-query values of both adapters equal single-machine
  ``skrank.evaluate(average=None)`` on the same rows in the same order (to
  1e-12), on a second table with heavy ties (ten score values): every
  metric of the registry that ``evaluate`` accepts under a tie rule (read
  from the registry), under each of the four tie rules (``average``,
  ``optimistic``, ``pessimistic``, ``first``), with string and with integer
  query ids, on Dask (a ``LocalCluster`` of ``--workers`` processes) and
  Spark (``local[2]``); all metrics of a rule in one call. Prints the largest
  difference per engine, the number of (metric, tie rule) pairs and the wall
  times; ``--rows 2000000 --check`` is the 2-million-row exactness check,
  too slow for the test suite on two cores.

Usage::

    python benchmarks/bench_distributed.py                     # 2 million rows
    python benchmarks/bench_distributed.py --rows 100000000    # 100 million
    python benchmarks/bench_distributed.py --rows 2000000 --check --no-spark-own
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

METRICS_K = 10


def write_rows(path: Path, n_rows: int, file_rows: int, *, ties: bool, seed=0):
    """Parquet files of rows whose queries (sizes 1 to 5,000) are scattered
    over all files. Returns the number of queries."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(1.6, max(n_rows // 40, 1)), 5000)
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), n_rows) + 1]
    p = sizes / sizes.sum()
    path.mkdir(parents=True, exist_ok=True)
    n_files = -(-n_rows // file_rows)
    for i in range(n_files):
        n = min(file_rows, n_rows - i * file_rows)
        q = rng.choice(sizes.size, n, p=p)
        frame = pd.DataFrame(
            {
                "qid": np.char.add("q", q.astype(str)) if ties else q.astype(np.int64),
                # the same queries with integer ids (the tied table only)
                **({"qid_int": q.astype(np.int64) * 7919 - 10**9} if ties else {}),
                "doc": np.arange(i * file_rows, i * file_rows + n, dtype=np.int64),
                "y_true": (
                    rng.choice(np.array([0, 0, 0, 1, 1, 2, 3]), n)
                    if ties
                    else (rng.random(n) < 0.3).astype(np.int64)
                ),
                "y_score": (
                    rng.integers(0, 10, n).astype(float) if ties else rng.random(n)
                ),
            }
        )
        frame.to_parquet(path / f"part{i:05d}.parquet")
    return int(sizes.size)


def _peak_rss_mb():
    # Linux reports ru_maxrss in kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds():
    """CPU seconds (user and system) used so far by this process and all
    its descendants (Dask's worker processes, Spark's JVM and its Python
    workers; those already ended as their parents' reaped children), read
    from ``/proc``: a measure of the work that the machine's other load
    does not inflate as it does wall time."""
    tick = os.sysconf("SC_CLK_TCK")
    parents, stats = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        parents[int(entry)] = int(fields[1])
        stats[int(entry)] = sum(int(x) for x in fields[11:15])
    mine = {os.getpid()}
    grew = True
    while grew:
        more = {p for p, parent in parents.items() if parent in mine} - mine
        grew = bool(more)
        mine |= more
    return sum(stats.get(p, 0) for p in mine) / tick


def run_dask(path, n_rows, n_workers, metrics, threads=1, shuffle=None, arrow=False):
    """``skrank.dask.evaluate`` of the rows in ``path`` on a ``LocalCluster``
    of ``n_workers`` processes of ``threads`` threads each, reading only the
    three columns evaluated (``arrow``: pyarrow-backed columns), with Dask's
    ``shuffle`` (None: the adapter's). Returns the means, the seconds and the
    peak resident memory of each worker before and after (MB)."""
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import skrank.dask as skd

    config = {} if shuffle is None else {"dataframe.shuffle.method": shuffle}
    options = {"dtype_backend": "pyarrow"} if arrow else {}
    with (
        LocalCluster(
            n_workers=n_workers,
            processes=True,
            threads_per_worker=threads,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster) as client,
        dask.config.set(config),
    ):
        base = client.run(_peak_rss_mb)
        cpu = cpu_seconds()
        t = time.perf_counter()
        rows = dd.read_parquet(path, columns=["qid", "y_true", "y_score"], **options)
        means = skd.evaluate(rows, metrics)
        elapsed = time.perf_counter() - t
        cpu = cpu_seconds() - cpu
        peak = client.run(_peak_rss_mb)
    return means, elapsed, cpu, base, peak


def _partition_mb(path):
    """The in-memory size of one Parquet file's three evaluated columns."""
    first = _files(path)[0]
    frame = pd.read_parquet(first, columns=["qid", "y_true", "y_score"])
    return len(frame), frame.memory_usage(index=False).sum() / 2**20


def spark_session(memory="2g", cores=2):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName("skrank-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", memory)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run_spark(spark, path, k, peer=True):
    import pyspark.sql.functions as F
    from pyspark.ml.evaluation import RankingEvaluator

    import skrank.spark as sks

    df = spark.read.parquet(str(path))
    names = [f"map@{k}", f"ndcg@{k}"]
    t = time.perf_counter()
    cpu = cpu_seconds()
    ours = sks.evaluate(df, names, convention="spark")
    t_ours = time.perf_counter() - t
    print(
        f"  skrank.spark: {t_ours:.1f} s, {cpu_seconds() - cpu:.1f} CPU s "
        "(this process and its descendants)",
        flush=True,
    )
    if not peer:
        return ours, t_ours, {}, float("nan")

    t = time.perf_counter()
    doc = F.col("doc").cast("double")
    ranked = F.sort_array(F.collect_list(F.struct("y_score", doc.alias("d"))), False)
    lists = df.groupBy("qid").agg(
        F.slice(F.transform(ranked, lambda x: x["d"]), 1, k).alias("prediction"),
        F.collect_list(F.when(F.col("y_true") > 0, doc)).alias("label"),
    )
    lists = lists.cache()
    theirs = {
        f"map@{k}": RankingEvaluator(
            metricName="meanAveragePrecisionAtK", k=k
        ).evaluate(lists),
        f"ndcg@{k}": RankingEvaluator(metricName="ndcgAtK", k=k).evaluate(lists),
    }
    t_theirs = time.perf_counter() - t
    lists.unpersist()
    return ours, t_ours, theirs, t_theirs


TIES = ("average", "optimistic", "pessimistic", "first")


def check_metrics(ties):
    """Every metric of the registry that ``skrank.evaluate`` computes under
    ``ties`` on tied scores (read from the registry: two metrics have no
    tractable expectation under ``"average"`` and refuse it), as two lists:
    those that also take a query whose one tie group holds 2,000 items, half
    of them relevant, and those that refuse it (interpolated precision under
    ``"average"`` bounds its work), which may refuse this data too."""
    import warnings

    import skrank

    def takes(name, y, s, qid):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                skrank.evaluate(y, s, name, qid=qid, ties=ties)
        except ValueError:
            return False
        return True

    big = np.tile([1, 0], 1000)
    accepted = [
        n for n in skrank.get_metric_names() if takes(n, [1, 0], [1.0, 1.0], [0, 0])
    ]
    limited = [n for n in accepted if not takes(n, big, np.ones(big.size), 0 * big)]
    return [n for n in accepted if n not in limited], limited


def _files(path):
    return sorted(Path(path).glob("*.parquet"))


def _spark_rows(spark, path):
    """The files as one Spark DataFrame whose row order is the files' order
    (a union of one frame per file, each file one partition): the input
    order of ``ties="first"``, the same as the single-machine rows."""
    from functools import reduce

    frames = [spark.read.parquet(str(f)) for f in _files(path)]
    return reduce(lambda a, b: a.unionByName(b), frames)


def _compare(frame, expected, ids, engine, ties):
    """Largest |difference| of ``frame`` (indexed by query id) from
    ``expected``, whose queries are ``ids``; raises on a difference."""
    frame = frame.loc[ids]
    worst = 0.0
    for name in expected:
        got = frame[name].to_numpy()
        assert np.array_equal(np.isnan(got), np.isnan(expected[name])), (
            engine,
            ties,
            name,
        )
        diff = np.abs(got - expected[name])
        d = float(np.nanmax(diff)) if diff.size and not np.isnan(diff).all() else 0.0
        worst = max(worst, d)
        assert d <= 1e-12, (engine, ties, name, d)
    return worst


def _refusals(path, metrics, ties, spark, message):
    """Both adapters refuse ``metrics`` on the rows as one process does:
    an error carrying the single-machine ``message`` (up to its first
    number: the counts in it are per partition). Dask with string ids,
    Spark with integer ids."""
    import re

    import dask.dataframe as dd

    import skrank.dask as skd
    import skrank.spark as sks

    message = re.split(r"\d", message)[0]
    runs = {
        "dask": lambda: skd.evaluate(
            dd.read_parquet(path, columns=["qid", "y_true", "y_score"]),
            metrics,
            ties=ties,
            average=None,
        ).compute()
    }
    if spark is not None:
        runs["spark"] = lambda: sks.evaluate(
            _spark_rows(spark, path).select("qid_int", "y_true", "y_score"),
            metrics,
            qid="qid_int",
            ties=ties,
            average=None,
        ).collect()
    for engine, run in runs.items():
        try:
            run()
        except Exception as exc:  # Spark wraps the worker's error
            assert message in str(exc), (engine, ties, str(exc)[:500])
        else:
            raise AssertionError(f"{engine} computed what one process refuses")


def check(path, n_rows, n_workers, spark, rules=TIES, refusals=False):
    """Per-query values of both adapters equal to single-machine skrank, for
    every metric and tie rule, with string and integer query ids. The
    metrics that refuse large tie groups (see :func:`check_metrics`) are
    tried in one process only with ``refusals``: compared when it computes
    them, or refused alike by the adapters (each try costs minutes on 2
    million rows); otherwise they are listed as not compared."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import skrank
    import skrank.dask as skd
    import skrank.spark as sks

    # the rows in the files' order, as Dask and the union above read them
    rows = pd.concat([pd.read_parquet(f) for f in _files(path)], ignore_index=True)
    worst = {}
    pairs = 0
    refused = []
    skipped = []
    times = {}
    with (
        LocalCluster(
            n_workers=n_workers,
            processes=True,
            threads_per_worker=1,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster),
    ):
        for ties in rules:
            metrics, limited = check_metrics(ties)
            if limited and not refusals:
                skipped.extend((name, ties) for name in limited)
                print(
                    f"  ties={ties}: not compared (they refuse a query with a "
                    f"2,000-item tie group; --refusals tries them): {limited}"
                )
                limited = []
            for name in limited:
                try:
                    skrank.evaluate(
                        rows["y_true"],
                        rows["y_score"],
                        name,
                        qid=rows["qid_int"],
                        average=None,
                        ties=ties,
                    )
                except ValueError as exc:
                    message = str(exc).split(";")[0]
                    _refusals(path, [name], ties, spark, message)
                    refused.append((name, ties))
                    print(f"  ties={ties}: {name} refused alike: {message}")
                else:
                    metrics.append(name)
            t = time.perf_counter()
            expected = skrank.evaluate(
                rows["y_true"],
                rows["y_score"],
                metrics,
                qid=rows["qid_int"],
                average=None,
                ties=ties,
            )
            times[("one process", ties)] = time.perf_counter() - t
            # the string id of each integer id, in the order of expected.qid
            ids = {
                "qid_int": expected.qid,
                "qid": rows.drop_duplicates("qid_int")
                .set_index("qid_int")
                .loc[expected.qid, "qid"]
                .to_numpy(),
            }
            for qid in ("qid", "qid_int"):
                kind = "str" if qid == "qid" else "int"
                t = time.perf_counter()
                frame = skd.evaluate(
                    dd.read_parquet(path, columns=[qid, "y_true", "y_score"]),
                    metrics,
                    qid=qid,
                    ties=ties,
                    average=None,
                ).compute()
                times[(f"dask {kind}", ties)] = time.perf_counter() - t
                d = _compare(frame, expected, ids[qid], "dask", ties)
                worst["dask"] = max(worst.get("dask", 0.0), d)
                if spark is None:
                    continue
                t = time.perf_counter()
                sdf = sks.evaluate(
                    _spark_rows(spark, path).select(qid, "y_true", "y_score"),
                    metrics,
                    qid=qid,
                    ties=ties,
                    average=None,
                )
                frame = pd.DataFrame(
                    [r.asDict() for r in sdf.collect()], columns=sdf.columns
                ).set_index(qid)
                times[(f"spark {kind}", ties)] = time.perf_counter() - t
                d = _compare(frame, expected, ids[qid], "spark", ties)
                worst["spark"] = max(worst.get("spark", 0.0), d)
            pairs += len(metrics)
            print(
                f"  ties={ties}: {len(expected.qid):,} queries, {len(metrics)} "
                f"metrics, string and integer ids, engines "
                f"{sorted(worst)}: equal (largest |diff| so far "
                + ", ".join(f"{e} {v:.1e}" for e, v in sorted(worst.items()))
                + ")"
            )
            print(
                "    wall time (s): "
                + ", ".join(
                    f"{who} {sec:.1f}"
                    for (who, rule), sec in times.items()
                    if rule == ties
                ),
                flush=True,
            )
    return worst, pairs, refused, skipped, times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument(
        "--file-rows",
        type=int,
        default=500_000,
        help="rows per Parquet file (a Dask partition)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per Dask worker process"
    )
    parser.add_argument(
        "--shuffle",
        choices=["tasks", "p2p"],
        default=None,
        help="Dask's shuffle (default: the adapter's)",
    )
    parser.add_argument(
        "--arrow", action="store_true", help="read pyarrow-backed columns"
    )
    parser.add_argument("--k", type=int, default=METRICS_K)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument(
        "--no-spark-own",
        action="store_true",
        help="skip the side-by-side run (only --check)",
    )
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument(
        "--no-ranking-evaluator",
        action="store_true",
        help="time skrank.spark only, not Spark's RankingEvaluator",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="read the Parquet files already in --workdir instead of writing them",
    )
    parser.add_argument(
        "--spark-memory", default="2g", help="Spark's driver memory (local mode)"
    )
    parser.add_argument("--check", action="store_true")
    parser.add_argument(
        "--ties",
        nargs="+",
        choices=TIES,
        default=list(TIES),
        help="the tie rules of --check (default: all four)",
    )
    parser.add_argument(
        "--refusals",
        action="store_true",
        help="--check: also try the metrics that refuse large tie groups",
    )
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args(argv)

    work = Path(args.workdir or tempfile.mkdtemp(prefix="skrank-bench-"))
    try:
        data = work / "rows"
        if not args.no_spark_own:
            if args.reuse and any(data.glob("*.parquet")):
                print(f"{args.rows:,} rows read from {data}")
            else:
                t = time.perf_counter()
                n_q = write_rows(data, args.rows, args.file_rows, ties=False)
                print(
                    f"{args.rows:,} rows, {n_q:,} queries, "
                    f"{-(-args.rows // args.file_rows)} Parquet files "
                    f"(written in {time.perf_counter() - t:.1f} s)"
                )
            metrics = [f"ndcg@{args.k}", f"map@{args.k}", "mrr", "precision@5"]
            if not args.no_dask:
                means, elapsed, cpu, base, peak = run_dask(
                    data,
                    args.rows,
                    args.workers,
                    metrics,
                    args.threads,
                    args.shuffle,
                    args.arrow,
                )
                part_rows, part_mb = _partition_mb(data)
                print(
                    f"\nDask (LocalCluster, {args.workers} worker processes x "
                    f"{args.threads} thread(s), shuffle "
                    f"{args.shuffle or 'default'}), {', '.join(metrics)}; "
                    f"a partition: {part_rows:,} rows, {part_mb:.1f} MB in memory"
                )
                dask_rate = args.rows / elapsed
                print(
                    f"  {elapsed:.1f} s, {dask_rate:,.0f} rows/s; {cpu:.1f} CPU s "
                    "(this process, its scheduler and the workers), "
                    f"{args.rows / cpu:,.0f} rows per CPU s"
                )
                for w in sorted(peak):
                    print(
                        f"  worker {w}: peak RSS {peak[w]:,.0f} MB "
                        f"(at start {base[w]:,.0f} MB)"
                    )
                means_text = ", ".join(f"{k}={v:.6f}" for k, v in means.items())
                print("  means: " + means_text)
            if not args.no_spark:
                spark = spark_session(args.spark_memory, args.workers)
                ours, t_ours, theirs, t_theirs = run_spark(
                    spark, data, args.k, not args.no_ranking_evaluator
                )
                print(f"\nSpark local[{args.workers}], the same rows")
                print(
                    f"  {'metric':<10} {'RankingEvaluator':>18} "
                    f"{'skrank.spark':>18} {'|diff|':>9}"
                )
                for name in theirs:
                    print(
                        f"  {name:<10} {theirs[name]:>18.12f} {ours[name]:>18.12f} "
                        f"{abs(theirs[name] - ours[name]):>9.1e}"
                    )
                print(f"  {'time (s)':<10} {t_theirs:>18.1f} {t_ours:>18.1f}")
                print(
                    f"  {'rows/s':<10} {args.rows / t_theirs:>18,.0f} "
                    f"{args.rows / t_ours:>18,.0f}"
                )
                spark_means = ", ".join(f"{k}={v:.6f}" for k, v in ours.items())
                print("  skrank.spark means: " + spark_means)
                if not args.no_dask:
                    print(
                        "  skrank.dask / skrank.spark rows/s: "
                        f"{dask_rate / (args.rows / t_ours):.2f}"
                    )
        if args.check:
            tied = work / "tied"
            if args.reuse and any(tied.glob("*.parquet")):
                print(f"\n--check: rows read from {tied}")
            else:
                n_q = write_rows(tied, args.rows, args.file_rows, ties=True, seed=1)
                print(
                    f"\n--check: {args.rows:,} rows, {n_q:,} query sizes drawn "
                    f"(1 to 5,000 rows), {-(-args.rows // args.file_rows)} Parquet "
                    "files, every query's rows scattered over all of them; ten "
                    "score values, relevance 0 to 3"
                )
            spark = None if args.no_spark else spark_session(args.spark_memory)
            t = time.perf_counter()
            worst, pairs, refused, skipped, _ = check(
                tied, args.rows, args.workers, spark, args.ties, args.refusals
            )
            print(
                f"  {pairs} (metric, tie rule) pairs, each with string and integer "
                f"ids, equal on {sorted(worst)}; largest |difference| from "
                "single-machine skrank: "
                + ", ".join(f"{e} {v:.1e}" for e, v in sorted(worst.items()))
                + f"; {len(refused)} pairs refused alike by one process and "
                f"the adapters, {len(skipped)} not compared; "
                f"{time.perf_counter() - t:.0f} s in all"
            )
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
