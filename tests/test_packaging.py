"""The source distribution: what ``pip install skrank`` builds from where no
wheel fits the platform (musllinux, 32-bit, other CPUs).

Its kernels are built from the Cython sources it carries: every ``.pyx``
and every ``.pxd`` they cimport must be in it, and a tree without them must
stop with a message instead of installing a package without its kernels.
The source distribution is made with setuptools from the checkout the tests
run in (``setup.py sdist``; no Cython translation happens then).
"""

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup(cwd, *args, egg_base):
    return subprocess.run(
        [
            sys.executable,
            "setup.py",
            "-q",
            "egg_info",
            "--egg-base",
            str(egg_base),
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_sdist_carries_every_cython_source(tmp_path):
    done = _setup(ROOT, "sdist", "-d", str(tmp_path), egg_base=tmp_path)
    assert done.returncode == 0, done.stderr
    (archive,) = tmp_path.glob("skrank-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    wanted = {
        path.relative_to(ROOT).as_posix()
        for pattern in ("*.pyx", "*.pxd", "*.pyi")
        for path in (ROOT / "skrank").rglob(pattern)
    }
    # the tree itself has kernels of each kind (else the test checks nothing)
    assert {Path(name).suffix for name in wanted} == {".pyx", ".pxd", ".pyi"}
    assert sorted(wanted - names) == []
    assert {"setup.py", "pyproject.toml", "MANIFEST.in"} <= names


def test_setup_without_cython_sources_stops(tmp_path):
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    package = tmp_path / "skrank"
    package.mkdir()
    shutil.copy(ROOT / "skrank" / "__init__.py", package / "__init__.py")
    done = _setup(tmp_path, "sdist", "-d", str(tmp_path), egg_base=tmp_path)
    assert done.returncode != 0
    assert "no Cython sources (skrank/**/*.pyx)" in done.stderr
    assert not list(tmp_path.glob("skrank-*.tar.gz"))
