"""Every script in examples/ runs to the end, as the gallery runs it.

Each example runs in its own Python process, from a temporary directory,
with matplotlib's non-interactive Agg backend, and must exit with status 0
after printing its results.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


def test_examples_found():
    names = {p.name for p in EXAMPLES}
    assert "quickstart.py" in names and "plot_tie_bounds.py" in names


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path, tmp_path):
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        # two cores: one BLAS thread per process keeps n_jobs=2 examples quick
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, (
        f"{path.name} exited with {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout[-3000:]}\n--- stderr ---\n{proc.stderr[-5000:]}"
    )
    assert proc.stdout.strip(), f"{path.name} printed nothing"
