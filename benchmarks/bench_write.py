"""Write a large TREC run and its qrels: skrank's ``to_trec`` against a plain
Python writer and ranx.

Builds, in a temporary directory, the run and qrels of
``benchmarks/bench_trec.py`` (``2,000 x scale`` queries of 1,000 documents:
2 million run lines at ``--scale 1``, scores with four decimals, so some tie),
reads them with skrank, then times writing them back:

* skrank: ``Run.to_trec(path)`` (plain and ``.gz``) and ``Qrels.to_trec``;
* a plain Python writer of the same lines (one ``f.write`` of an f-string
  per line, the documents sorted by ``sorted``), the usual hand-written
  script (the same bytes as skrank's, which the run checks);
* ranx (``--peers``): ``Run.save(path, kind="trec")`` on the ``ranx.Run``
  read from the same file (its reading is not timed).

The table gives the best wall time of ``--repeat`` runs, the lines written
per second and the output's size. Measured with ``--scale 1 --repeat 3``
(2 million run lines) on the development machine, 2 cores shared with other
work (load average 9 to 10 during the run, so the figures are upper
bounds), numpy 2.4, Python 3.11; ranx 0.3.21's row from a ``--peers`` run at
the same load (``--repeat 2``)::

    task                     seconds   Mlines/s      MB
    skrank Run.to_trec          4.37       0.46    69.2
    skrank Run.to_trec .gz     10.89       0.18    19.9
    plain Python writer         6.87       0.29    69.2
    skrank Qrels.to_trec        0.10       1.34     2.9
    ranx Run.save              82.78       0.02    69.2

The run's time is mostly the formatting of the lines (Python's ``repr`` of
each score, through one batched ``bytes % tuple`` per chunk of 65,536
lines; numpy's float formatting, ``astype("S")``, gives the same text about
twice as slowly); ordering the rows through the engine and checking the ids
take a few percent. gzip (level 6, the ``gzip`` tool's default) adds the
compression.

Usage::

    python benchmarks/bench_write.py              # 2 million lines
    python benchmarks/bench_write.py --scale 0.1 --repeat 3 --peers
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_trec import make_files  # noqa: E402


def _best(func, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t)
    return best


def _plain_python(run, path):
    """The hand-written writer: one line at a time."""
    qid, docno, score = run.qid.tolist(), run.docno.tolist(), run.score.tolist()
    name = run.name
    by_query = {}
    for i, q in enumerate(qid):
        by_query.setdefault(q, []).append(i)
    with open(path, "w") as f:
        for q, rows in by_query.items():
            rows.sort(key=lambda i: -score[i])
            for rank, i in enumerate(rows, start=1):
                f.write(f"{q} Q0 {docno[i]} {rank} {score[i]!r} {name}\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--peers", action="store_true", help="time ranx too")
    args = parser.parse_args(argv)

    from skrank.trec import read_qrels, read_run

    n_queries = max(1, int(2_000 * args.scale))
    with tempfile.TemporaryDirectory() as directory:
        run_path, qrels_path = make_files(directory, n_queries)[:2]
        run, qrels = read_run(run_path), read_qrels(qrels_path)
        out = os.path.join(directory, "out")
        rows = []

        def row(task, seconds, n_lines, path):
            size = os.path.getsize(path) / 1e6
            rows.append((task, seconds, n_lines / seconds / 1e6, size))

        t = _best(lambda: run.to_trec(out + ".run"), args.repeat)
        row("skrank Run.to_trec", t, len(run), out + ".run")
        t = _best(lambda: run.to_trec(out + ".run.gz"), args.repeat)
        row("skrank Run.to_trec .gz", t, len(run), out + ".run.gz")
        t = _best(lambda: _plain_python(run, out + ".py"), args.repeat)
        row("plain Python writer", t, len(run), out + ".py")
        with open(out + ".run", "rb") as a, open(out + ".py", "rb") as b:
            same = a.read() == b.read()
        t = _best(lambda: qrels.to_trec(out + ".qrels"), args.repeat)
        row("skrank Qrels.to_trec", t, len(qrels), out + ".qrels")
        if args.peers:
            import ranx

            peer = ranx.Run.from_file(run_path, kind="trec")
            t = _best(lambda: peer.save(out + ".ranx", kind="trec"), args.repeat)
            row("ranx Run.save", t, len(run), out + ".ranx")

    print(f"{len(run):,} run lines, {len(qrels):,} qrels lines")
    print(f"skrank and the plain Python writer wrote the same bytes: {same}")
    print(f"{'task':<24}{'seconds':>8}{'Mlines/s':>11}{'MB':>8}")
    for task, seconds, rate, size in rows:
        print(f"{task:<24}{seconds:8.2f}{rate:11.2f}{size:8.1f}")


if __name__ == "__main__":
    main()
