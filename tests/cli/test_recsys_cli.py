"""``skrank recommendations``: its output equals evaluate_recommendations on
the same tables, read from TSV, CSV (gzip-compressed) and Parquet."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from cli.cli_helpers import assert_one_error_line, run_main
from skrank.recsys import evaluate_recommendations, get_recsys_metric_names
from skrank.recsys._conventions import RECSYS_CONVENTIONS

PROG = "skrank recommendations"


class Tables:
    """Scores with ties (three values), graded test interactions and
    training interactions, with text ids."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        users = [f"u{i}" for i in range(8)]
        items = [f"i{j}" for j in range(6)]
        pairs = [(u, i) for u in users for i in items if rng.random() < 0.8]
        self.scores = (
            np.array([u for u, _ in pairs], dtype=object),
            np.array([i for _, i in pairs], dtype=object),
            rng.integers(1, 4, size=len(pairs)) / 4,
        )
        test = [p for p in pairs if rng.random() < 0.3]
        self.test = (
            np.array([u for u, _ in test], dtype=object),
            np.array([i for _, i in test], dtype=object),
            rng.integers(1, 3, size=len(test)).astype(float),
        )
        train = [p for p in pairs if p not in test and rng.random() < 0.3]
        self.train = (
            np.array([u for u, _ in train], dtype=object),
            np.array([i for _, i in train], dtype=object),
        )

    def write(self, path, columns, header=None, sep="\t", gz=False):
        lines = [] if header is None else [sep.join(header)]
        for row in zip(*columns, strict=True):
            lines.append(sep.join(_text(v) for v in row))
        text = "\n".join(lines) + "\n"
        if gz:
            with gzip.open(path, "wt") as f:
                f.write(text)
        else:
            path.write_text(text)
        return path


def _text(value):
    """An id as it is, a score as the shortest text that reads back exactly."""
    if isinstance(value, str | int | np.integer):
        return str(value)
    return repr(float(value))


@pytest.fixture
def tables():
    return Tables()


def _json(capsys, *args):
    status, out, err = run_main(capsys, "recommendations", *args, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def test_tsv_tables_as_the_function(tmp_path, tables, capsys):
    scores = tables.write(tmp_path / "s.tsv", tables.scores, ("user", "item", "score"))
    test = tables.write(tmp_path / "t.tsv", tables.test)
    got = _json(capsys, "--scores", scores, "--interactions", test, "-k", "3")
    expected = evaluate_recommendations(tables.scores, tables.test, k=3)
    assert got["metrics"] == expected  # the same floats, through JSON
    assert (got["ties"], got["k"]) == ("average", 3)


def test_the_table_output(tmp_path, tables, capsys):
    scores = tables.write(tmp_path / "s.tsv", tables.scores)
    test = tables.write(tmp_path / "t.tsv", tables.test[:2])  # relevance 1
    status, out, _ = run_main(
        capsys,
        "recommendations",
        "--scores",
        scores,
        "--interactions",
        test,
        "-m",
        "ndcg@2",
        "-m",
        "fbeta(beta=2)",
        "--digits",
        "6",
        "-k",
        "3",
    )
    assert status == 0
    expected = evaluate_recommendations(
        tables.scores, tables.test[:2], k=3, metrics=["ndcg@2", "fbeta(beta=2)"]
    )
    lines = [line.split("\t") for line in out.strip().splitlines()]
    assert [(n.strip(), q, v) for n, q, v in lines] == [
        (name, "all", f"{value:.6f}") for name, value in expected.items()
    ]


def test_csv_gz_with_training_and_a_convention(tmp_path, tables, capsys):
    scores = tables.write(tmp_path / "s.csv.gz", tables.scores, sep=",", gz=True)
    test = tables.write(tmp_path / "t.csv", tables.test, sep=",")
    train = tables.write(tmp_path / "tr.csv", tables.train, ("user", "item"), ",")
    metrics = ["precision", "ndcg", "novelty(smoothing=1)", "catalog_coverage", "arp"]
    args = ["--scores", scores, "--interactions", test, "--train", train]
    for metric in metrics:
        args += ["-m", metric]
    got = _json(
        capsys, *args, "--exclude-train", "-k", "2", "--convention", "recommenders"
    )
    expected = evaluate_recommendations(
        tables.scores,
        tables.test,
        k=2,
        metrics=metrics,
        exclude=tables.train,
        train=tables.train,
        convention="recommenders",
    )
    assert got["metrics"] == pytest.approx(expected, rel=0, abs=0, nan_ok=True)
    assert got["ties"] == "first"  # the convention's


def test_options_reach_the_function(tmp_path, tables, capsys):
    scores = tables.write(tmp_path / "s.txt", tables.scores)
    test = tables.write(tmp_path / "t.txt", tables.test)
    got = _json(
        capsys,
        "--scores",
        scores,
        "--interactions",
        test,
        "-m",
        "recall",
        "-m",
        "map",
        "--ties",
        "pessimistic",
        "--users",
        "all",
        "--undefined",
        "nan",
        "-k",
        "4",
    )
    expected = evaluate_recommendations(
        tables.scores,
        tables.test,
        k=4,
        metrics=["recall", "map"],
        ties="pessimistic",
        users="all",
        replace_undefined_by=np.nan,
    )
    assert got["metrics"] == expected


def test_parquet_as_tsv(tmp_path, tables, capsys):
    import pandas as pd

    path = tmp_path / "s.parquet"
    # numeric ids in Parquet are read as text, as in a text table
    frame = pd.DataFrame(
        {
            "user": [int(u[1:]) for u in tables.scores[0]],
            "item": [int(i[1:]) for i in tables.scores[1]],
            "score": tables.scores[2],
        }
    )
    frame.to_parquet(path)
    tsv = tables.write(
        tmp_path / "s.tsv", (frame["user"], frame["item"], frame["score"])
    )
    test = tables.write(
        tmp_path / "t.tsv",
        ([u[1:] for u in tables.test[0]], [i[1:] for i in tables.test[1]]),
    )
    a = _json(capsys, "--scores", path, "--interactions", test, "-k", "2")
    b = _json(capsys, "--scores", tsv, "--interactions", test, "-k", "2")
    assert a["metrics"] == b["metrics"]


def test_help_lists_the_registry(capsys):
    with pytest.raises(SystemExit):
        run_main(capsys, "recommendations", "--help")
    out = " ".join(capsys.readouterr().out.split())
    for name in get_recsys_metric_names():
        assert name in out
    for conv in RECSYS_CONVENTIONS:
        assert conv.name in out


@pytest.mark.parametrize(
    "content, extra, message",
    [
        ("u\ti\t0.5\n", ["-m", "nope"], "Unknown recommender metric 'nope'"),
        ("u\ti\tx\nu\tj\tabc\n", [], "the score column must hold finite numbers"),
        ("u\ti\n", [], "must have the columns user item score"),
        ("u\ti\tinf\n", [], "data row 1 has 'inf'"),
        ("u\ti\t0.5\n", ["--exclude-train"], "--exclude-train needs --train"),
        ("u\ti\t0.5\n", ["-k", "0"], "-k must be an integer of at least 1"),
    ],
)
def test_errors(tmp_path, capsys, content, extra, message):
    scores = tmp_path / "s.tsv"
    scores.write_text(content)
    status, _, err = run_main(capsys, "recommendations", "--scores", scores, *extra)
    assert status == 2
    assert message in assert_one_error_line(err, PROG)


def test_rows_of_different_widths(tmp_path, capsys):
    # relevance on one row of the interactions and not on the other
    scores = tmp_path / "s.tsv"
    scores.write_text("u\ti\t0.5\nu\tj\t0.2\n")
    test = tmp_path / "t.tsv"
    test.write_text("u\ti\t2\nu\tj\n")
    args = ["--scores", scores, "--interactions", test, "-k", "1"]
    status, _, err = run_main(capsys, "recommendations", *args)
    assert status == 2
    message = assert_one_error_line(err, PROG)
    assert "user item relevance in every row; data row 2 has 2" in message


def test_unknown_extension(tmp_path, capsys):
    scores = tmp_path / "s.json"
    scores.write_text("{}")
    status, _, err = run_main(capsys, "recommendations", "--scores", scores)
    assert status == 2
    assert "extension" in assert_one_error_line(err, PROG)


def test_a_warning_is_one_line(tmp_path, capsys):
    # two items, one candidate per user: k=2 exceeds every user's candidates,
    # and the function's warning is one line
    scores = tmp_path / "s.tsv"
    scores.write_text("u\ti\t0.5\nv\tj\t0.5\n")
    test = tmp_path / "t.tsv"
    test.write_text("u\ti\n")
    args = ["--scores", scores, "--interactions", test, "-k", "2", "-m", "recall"]
    status, out, err = run_main(capsys, "recommendations", *args)
    assert status == 0 and out.split() == ["recall", "all", "1.0000"]
    assert err.startswith(f"{PROG}: warning: ") and err.count("\n") == 1
