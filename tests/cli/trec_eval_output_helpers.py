"""Helpers of the tests of ``--format trec_eval``: files written for a test
and the command line run on them."""

from __future__ import annotations

from skrank._cli import main


def _write(tmp_path, qrels, run):
    (tmp_path / "qrels").write_text(qrels, encoding="utf-8")
    (tmp_path / "run").write_text(run, encoding="utf-8")
    return tmp_path / "qrels", tmp_path / "run"


def _skrank(capsys, qrels, run, *args):
    status = main(["evaluate", str(qrels), str(run), *args, "--format", "trec_eval"])
    out, err = capsys.readouterr()
    assert status == 0
    return out, err
