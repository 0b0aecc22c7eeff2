"""``skrank fuse``: the run written is the one :func:`skrank.fusion.fuse`
returns, byte for byte as :meth:`Run.to_trec` writes it (to a file, a gzip
file or standard output); ``skrank evaluate`` and ``skrank compare`` read
it; bad options exit 2 with one line naming the option."""

from __future__ import annotations

import gzip
import io
import re

import pytest

from cli.cli_helpers import assert_one_error_line, run_main
from skrank.fusion import fuse
from skrank.trec import evaluate_run, read_run

PROG = "skrank fuse"


def _expected(files, method, norm=None, name=None, **kwargs):
    """The bytes Run.to_trec writes of fuse(...) on the two runs."""
    fused = fuse(
        [str(files["a.run"]), str(files["b.run"])],
        method,
        norm,
        name=name or method,
        **kwargs,
    )
    buffer = io.BytesIO()
    fused.to_trec(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("options", "method", "norm", "kwargs"),
    [
        ([], "rrf", None, {}),
        (["--method", "combmnz", "--norm", "min-max"], "combmnz", "min-max", {}),
        (
            ["--method", "wsum", "--weights", "0.3", "0.7"],
            "wsum",
            None,
            {"weights": [0.3, 0.7]},
        ),
        (["--method", "rrf", "--param", "k=10"], "rrf", None, {"k": 10}),
        (["--method", "RBC", "--param", "phi=0.5"], "rbc", None, {"phi": 0.5}),
    ],
)
def test_the_written_run_is_fuse_to_the_last_byte(
    options, method, norm, kwargs, files, tmp_path, capsys
):
    path = tmp_path / "fused.run"
    status, out, err = run_main(
        capsys, "fuse", files["a.run"], files["b.run"], *options, "-o", path
    )
    assert (status, out, err) == (0, "", "")
    assert path.read_bytes() == _expected(files, method, norm, **kwargs)
    # and it reads back as the fused run
    back = read_run(str(path)).to_dict()
    want = fuse([str(files["a.run"]), str(files["b.run"])], method, norm, **kwargs)
    assert back == want.to_dict()


def test_gzip_by_extension_and_standard_output(files, tmp_path, capsys):
    want = _expected(files, "rrf", name="fused")
    path = tmp_path / "fused.run.gz"
    args = ("fuse", files["a.run"], files["b.run"], "--run-name", "fused")
    assert run_main(capsys, *args, "-o", path)[0] == 0
    assert gzip.decompress(path.read_bytes()) == want
    for out_option in ([], ["-o", "-"]):
        status, out, _ = run_main(capsys, *args, *out_option)
        assert status == 0 and out.encode() == want


def test_trained_method_with_qrels(files, tmp_path, capsys):
    path = tmp_path / "fused.run"
    status, _, err = run_main(
        capsys,
        "fuse",
        files["a.run"],
        files["b.run"],
        "--method",
        "probfuse",
        "--qrels",
        files["qrels"],
        "--param",
        "n_segments=2",
        "-o",
        path,
    )
    assert (status, err) == (0, "")
    want = _expected(files, "probfuse", qrels=str(files["qrels"]), n_segments=2)
    assert path.read_bytes() == want


def test_evaluate_and_compare_read_the_fused_run(files, tmp_path, capsys):
    path = tmp_path / "fused.run"
    run_main(capsys, "fuse", files["a.run"], files["b.run"], "-o", path)
    status, out, err = run_main(
        capsys, "evaluate", files["qrels"], path, "-m", "map", "--format", "csv"
    )
    assert status == 0 and err == ""
    want = evaluate_run(str(files["qrels"]), str(path), "map")["map"]
    # csv gives every digit
    assert repr(want) in out
    status, out, err = run_main(
        capsys,
        "compare",
        files["qrels"],
        files["a.run"],
        path,
        "-m",
        "map",
        "--resamples",
        "99",
        "--seed",
        "0",
        "--format",
        "json",
    )
    assert status == 0 and err == ""
    assert '"rrf"' in out


@pytest.mark.parametrize(
    ("options", "option", "message"),
    [
        (
            ["--method", "bogus"],
            "--method",
            r"The 'method' parameter of skrank fuse must be one of .*got 'bogus'",
        ),
        (
            ["--norm", "minmaxx"],
            "--norm",
            r"The 'norm' parameter of skrank fuse must be one of .*got 'minmaxx'",
        ),
        (
            ["--method", "wsum", "--weights", "0.3"],
            "--weights",
            r"must be a sequence of 2 finite non-negative numbers, one per run; "
            r"got \[0\.3\]",
        ),
        (
            ["--method", "rrf", "--weights", "1", "2"],
            "--weights",
            r"applies to the weighted methods .* method 'rrf' takes none",
        ),
        (
            ["--method", "probfuse"],
            "--qrels",
            r"the method 'probfuse' is trained on judgments; give the qrels file",
        ),
        (["--qrels", "QRELS"], "--qrels", r"the method 'rrf' learns nothing"),
        (["--param", "k"], "--param", r"must be NAME=NUMBER \(k=60\); got 'k'"),
        (["--param", "z=1"], "--param", r"method 'rrf' takes 'k'; got 'z'"),
        (["--param", "k=-1"], "--param", r"'k' parameter of skrank fuse"),
    ],
)
def test_bad_options_exit_2_with_one_line(options, option, message, files, capsys):
    options = [str(files["qrels"]) if o == "QRELS" else o for o in options]
    status, out, err = run_main(
        capsys, "fuse", files["a.run"], files["b.run"], *options
    )
    assert status == 2 and out == ""
    line = assert_one_error_line(err, PROG)
    assert line.startswith(f"{option}: ")
    assert re.search(message, line), line


def test_a_missing_run_file_exits_2(files, tmp_path, capsys):
    status, out, err = run_main(capsys, "fuse", files["a.run"], tmp_path / "none.run")
    assert status == 2 and out == ""
    assert "none.run" in assert_one_error_line(err, PROG)
