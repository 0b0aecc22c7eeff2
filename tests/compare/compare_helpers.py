"""Helpers of the tests of skrank.compare: results of two systems, runs of
three."""

from __future__ import annotations


def _two(a, b, metric="m", qid=None):
    ra, rb = {metric: a}, {metric: b}
    if qid is not None:
        ra["qid"] = rb["qid"] = qid
    return {"a": ra, "b": rb}


def _three_runs(tmp_path):
    """A qrels file and three runs "a", "b", "c" of five queries (each query
    with relevant r1 and r2) written in ``tmp_path``: the paths (qrels
    first) and the systems' per-query map from skrank.trec.evaluate_run."""
    from skrank.trec import evaluate_run

    qrels = "".join(f"q{i} 0 r1 1\nq{i} 0 r2 1\n" for i in range(1, 6))
    orders = {
        "a": ["n1 r1 r2", "r1 n1", "n2 n1 r1", "r2", "n1 r2"],
        "b": ["r1 n1 r2", "r1 r2", "r2 n1", "r1 r2", "r2 r1"],
        "c": ["r1 r2", "n1 r1", "r2 n1 r1", "r2 r1", "r1 n1"],
    }
    paths = [tmp_path / "qrels"]
    paths[0].write_text(qrels)
    for name, per_query in orders.items():
        lines = [
            f"q{i} Q0 {d} {k} {9 - k} {name}"
            for i, docs in enumerate(per_query, start=1)
            for k, d in enumerate(docs.split(), start=1)
        ]
        paths.append(tmp_path / f"{name}.run")
        paths[-1].write_text("\n".join(lines) + "\n")
    values = {
        name: evaluate_run(str(paths[0]), str(p), ["map"], return_per_query=True)[1]
        for name, p in zip(orders, paths[1:], strict=True)
    }
    return paths, values
