"""Helpers of the tests of the command line: small qrels and runs, the
command run in-process, and its error lines."""

from __future__ import annotations

from pathlib import Path

from skrank._cli import main

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec_eval"


# q1: d1 (relevant) and d2 (judged non-relevant) tie; d3 is unjudged.
# q2: d5 (relevant) first. q3 is judged but not retrieved.
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d5 2\nq2 0 d6 1\nq3 0 d9 1\n"


RUN_A = (
    "q1 Q0 d1 1 0.5 runA\nq1 Q0 d2 2 0.5 runA\nq1 Q0 d3 3 0.1 runA\n"
    "q2 Q0 d5 1 0.9 runA\n"
)


RUN_B = (
    "q1 Q0 d3 1 0.9 runB\nq1 Q0 d1 2 0.5 runB\nq2 Q0 d7 1 0.9 runB\n"
    "q2 Q0 d6 2 0.4 runB\n"
)


def _lines(text):
    return [line.split("\t") for line in text.strip().splitlines()]


def run_main(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_error_line(err, prog="skrank evaluate"):
    """Exactly one line of ``err`` is an error, the last, and no traceback."""
    lines = err.splitlines()
    errors = [line for line in lines if "error:" in line]
    assert len(errors) == 1 and lines[-1] == errors[0], err
    assert errors[0].startswith(f"{prog}: error: "), err
    assert "Traceback" not in err
    # argparse's usage lines may come before it
    assert all(line.startswith(("usage:", " ")) for line in lines[:-1]), err
    return errors[0][len(f"{prog}: error: ") :]
