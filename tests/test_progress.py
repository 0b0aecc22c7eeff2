"""Progress reports (``verbose=``) of the readers, ``evaluate_run``,
``compare``, the Dask adapter and the command line: a tqdm bar or plain
lines on stderr at ``verbose >= 1``, nothing at 0, the same numbers at every
level, and a clear error for a bad level."""

import sys

import numpy as np
import pytest

from skrank import _progress, compare
from skrank._cli import main
from skrank._validation import InvalidParameterError
from skrank.trec import evaluate_run, read_qrels, read_run

# 40 queries of 6 documents; query q<i> judges d0 and d<i % 6> relevant
QRELS = "".join(
    f"q{i} 0 d{j} {int(j in (0, i % 6))}\n" for i in range(40) for j in range(6)
)
RUN = "".join(
    f"q{i} Q0 d{j} {j + 1} {(7 * i + 3 * j) % 5} bm25\n"
    for i in range(40)
    for j in range(6)
)


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


@pytest.fixture
def plain(monkeypatch):
    """tqdm hidden: importing it fails, as when it is not installed."""
    monkeypatch.setitem(sys.modules, "tqdm", None)


def _per_query():
    # two systems' per-query values over 30 queries (any values will do)
    rng = np.random.default_rng(0)
    qid = [f"q{i}" for i in range(30)]
    return {s: {"qid": qid, "map": rng.uniform(size=30).tolist()} for s in ("a", "b")}


# ---------------------------------------------------------------------------
# The helper
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [-1, 1.5, "1", None, np.float64(1.0)])
def test_bad_verbose_is_refused_with_the_value(bad, files):
    shown = {None: "None", "1": "'1'"}.get(bad, str(bad) if bad != 1.5 else "1.5")
    match = (
        r"The 'verbose' parameter of read_run must be an int in the range "
        rf"\[0, inf\) or a bool. Got {shown}"
    )
    with pytest.raises(InvalidParameterError, match=match):
        read_run(files[1], verbose=bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda f, v: read_qrels(f[0], verbose=v),
        lambda f, v: evaluate_run(f[0], f[1], "map", verbose=v),
        lambda f, v: compare(_per_query(), verbose=v),
    ],
    ids=["read_qrels", "evaluate_run", "compare"],
)
def test_every_entry_point_checks_verbose(call, files, capsys):
    with pytest.raises(InvalidParameterError, match="'verbose' parameter of"):
        call(files, -2)
    assert capsys.readouterr().err == ""


def test_plain_lines_at_most_one_per_interval(plain, monkeypatch, capsys):
    # every update is a second after the last one: one line each, then the
    # closing line; the shares are 1/4, 2/4, ... of 8 units
    clock = iter(range(100))
    monkeypatch.setattr(_progress.time, "monotonic", lambda: float(next(clock)))
    with _progress.progress(1, 8, desc="task", unit="query") as bar:
        for _ in range(4):
            bar.update(2)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "task: 2 query of 8 query (25%), 1.0 s",
        "task: 4 query of 8 query (50%), 2.0 s",
        "task: 6 query of 8 query (75%), 3.0 s",
        "task: 8 query of 8 query (100%), 4.0 s",
        "task: 8 query in 5.0 s",
    ]


def test_plain_lines_wait_for_the_interval(plain, capsys):
    # a thousand updates within a second: only the closing line
    with _progress.progress(1, 1000, desc="task", unit="B") as bar:
        for _ in range(1000):
            bar.update(1)
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("task: 1000 B in ")


def test_tqdm_bar_on_stderr(capsys):
    with _progress.progress(1, 4, desc="task", unit="query") as bar:
        bar.update(4)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "task: 100%" in captured.err and "4/4" in captured.err


# ---------------------------------------------------------------------------
# The entry points
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("tqdm", [True, False], ids=["tqdm", "plain"])
def test_readers_report_the_bytes_of_the_file(tqdm, files, monkeypatch, capsys):
    if not tqdm:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    run = read_run(files[1], verbose=1)
    err = capsys.readouterr().err
    assert f"read_run {files[1]}" in err
    size = len(RUN.encode())  # the file's bytes: 40 * 6 lines
    if tqdm:
        assert "100%" in err
    else:
        assert err.splitlines()[-1].startswith(
            f"read_run {files[1]}: {size / 1024:.1f} KiB in "
        )
    assert run.qid.shape == (240,)


def test_gzip_file_has_no_total(tmp_path, plain, monkeypatch, capsys):
    # a compressed file's size is not its text's: the bytes read, no share
    import gzip

    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(RUN.encode()))
    clock = iter(range(100))
    monkeypatch.setattr(_progress.time, "monotonic", lambda: float(next(clock)))
    read_run(str(path), verbose=1)
    size = len(RUN.encode())
    assert capsys.readouterr().err.splitlines() == [
        f"read_run {path}: {size / 1024:.1f} KiB, 1.0 s",
        f"read_run {path}: {size / 1024:.1f} KiB in 2.0 s",
    ]


def test_verbose_zero_is_silent(files, capsys):
    read_qrels(files[0])
    evaluate_run(files[0], files[1], ["map", "ndcg@5"], verbose=0)
    compare(_per_query(), n_resamples=99, random_state=0)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("tqdm", [True, False], ids=["tqdm", "plain"])
def test_evaluate_run_reports_files_and_queries(tqdm, files, monkeypatch, capsys):
    if not tqdm:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    evaluate_run(files[0], files[1], ["map", "ndcg@5"], verbose=1)
    err = capsys.readouterr().err
    assert "evaluate_run " + files[0] in err and "evaluate_run " + files[1] in err
    # one ranking pass over the 40 queries
    assert ("40/40" in err) if tqdm else ("evaluate_run: 40 queries in " in err)


def test_evaluate_run_verbose_two_names_its_passes(files, plain, capsys):
    # trec_eval's convention ranks its metrics in one pass of its tie order
    evaluate_run(files[0], files[1], ["map", "P@5"], verbose=2, convention="trec_eval")
    err = capsys.readouterr().err
    assert "evaluate_run: ranking pass (ties='trec_eval'): map, precision@5" in err


def test_the_same_numbers_at_every_verbose(files, capsys):
    got = [
        evaluate_run(
            files[0],
            files[1],
            ["map", "ndcg@5"],
            return_per_query=True,
            tie_bounds=True,
            verbose=v,
        )
        for v in (0, 1, 2, True)
    ]
    for means, table in got[1:]:
        assert means == got[0][0]
        for name in ("map", "ndcg@5"):
            np.testing.assert_array_equal(table[name], got[0][1][name])
    runs = [read_run(files[1], verbose=v) for v in (0, 1)]
    np.testing.assert_array_equal(runs[0].score, runs[1].score)
    per_query = _per_query()
    cmp = [
        compare(
            per_query, test="randomization", n_resamples=199, random_state=0, verbose=v
        )
        for v in (0, 1, 2)
    ]
    assert cmp[1].to_dict() == cmp[0].to_dict() == cmp[2].to_dict()
    assert "verbose" not in cmp[1].settings_


def test_compare_reports_its_resamples(plain, capsys):
    # bootstrap intervals and a randomization test: 2 x 99 resamples
    compare(_per_query(), test="randomization", n_resamples=99, verbose=1)
    assert capsys.readouterr().err.startswith("compare: 198 resamples in ")
    # t-intervals and the t-test resample nothing: nothing to report
    compare(_per_query(), test="t", interval="t", verbose=1)
    assert capsys.readouterr().err == ""


def test_dask_shows_its_progress_bar(capsys):
    import dask.dataframe as dd
    import pandas as pd

    import skrank.dask

    frame = pd.DataFrame(
        {"y_true": [1, 0, 0, 1], "y_score": [0.9, 0.1, 0.5, 0.2], "qid": [1, 1, 2, 2]}
    )
    df = dd.from_pandas(frame, npartitions=2)
    quiet = skrank.dask.evaluate(df, "mrr")
    assert capsys.readouterr().err == ""
    shown = skrank.dask.evaluate(df, "mrr", verbose=1)
    # dask.diagnostics.ProgressBar's bar and its closing line
    assert "Completed" in capsys.readouterr().err
    # q1: the relevant item first, 1; q2: second, 1/2 (by hand)
    assert quiet == shown == {"mrr": 0.75}
    with pytest.raises(InvalidParameterError, match="'verbose' parameter of skrank"):
        skrank.dask.evaluate(df, "mrr", verbose=-1)


@pytest.mark.slow
@pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)
def test_spark_names_its_ui_and_stages(monkeypatch, capsys):
    # Spark's Python workers must run this interpreter (skrank, numpy, pandas)
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    from peers import spark_session

    import skrank.spark

    spark = spark_session()
    df = spark.createDataFrame(
        [(1, 0.9, 1), (0, 0.1, 1), (0, 0.5, 2), (1, 0.2, 2)],
        ["y_true", "y_score", "qid"],
    )
    quiet = skrank.spark.evaluate(df, "mrr")
    assert capsys.readouterr().err == ""
    shown = skrank.spark.evaluate(df, "mrr", verbose=1)
    err = capsys.readouterr().err
    ui = spark.sparkContext.uiWebUrl
    assert (
        f"skrank.spark.evaluate: the Spark UI shows the progress of its jobs: {ui}"
        in err
    )
    assert "skrank.spark.evaluate: stage: the query ids checked for nulls" in err
    assert "buckets evaluated" in err and "skrank.spark.evaluate: done in " in err
    # q1: the relevant item first, 1; q2: second, 1/2 (by hand)
    assert quiet == shown == {"mrr": 0.75}


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags, tty, shown",
    [
        (["--progress"], False, True),
        (["--no-progress"], True, False),
        ([], True, True),
        ([], False, False),
    ],
)
def test_cli_progress_flags(flags, tty, shown, files, plain, monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    assert main(["evaluate", *files, "-m", "map", *flags]) == 0
    err = capsys.readouterr().err
    assert ("read_qrels " + files[0] in err) is shown
    assert ("evaluate_run: 40 queries in" in err) is shown


def test_cli_compare_progress(files, plain, tmp_path, capsys):
    other = tmp_path / "other.txt"
    other.write_text(
        "".join(
            f"q{i} Q0 d{j} {j + 1} {(5 * i + j) % 4} dense\n"
            for i in range(40)
            for j in range(6)
        )
    )
    args = ["compare", *files, str(other), "-m", "map", "--resamples", "99"]
    assert main([*args, "--progress", "--seed", "0"]) == 0
    shown = capsys.readouterr()
    # the BCa intervals (the default) resample; the t-test does not
    assert "compare: 99 resamples in " in shown.err
    assert main([*args, "--no-progress", "--seed", "0"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == "" and quiet.out == shown.out
