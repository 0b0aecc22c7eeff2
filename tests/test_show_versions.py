"""skrank.show_versions and ``skrank --version``: what skrank runs on.

The versions printed are compared with ``importlib.metadata`` (what pip
installed), the kernels' state with importing them, the thread setting with
:mod:`skrank._threads`, and the short form with the command line's output.
"""

from __future__ import annotations

import platform
from importlib import metadata

import pytest

import skrank
from skrank import _show_versions, _threads
from skrank._cli import main


def test_show_versions_prints_every_section(capsys):
    skrank.show_versions()
    out = capsys.readouterr().out
    for section in (
        "System:",
        "Python dependencies:",
        "Optional dependencies:",
        "Compiled kernels:",
        "Threads:",
    ):
        assert f"\n{section}\n" in out
    assert f"skrank: {skrank.__version__}" in out
    for name in ("numpy", "scipy", "scikit-learn"):
        assert f"{name}: {metadata.version(name)}" in out


def test_core_and_optional_versions_are_the_installed_ones():
    info = _show_versions._get_info()
    assert info["Python dependencies"]["scikit-learn"] == metadata.version(
        "scikit-learn"
    )
    # the test extra installs matplotlib and pandas; an optional package that
    # is missing is left out rather than listed as None
    optional = info["Optional dependencies"]
    assert optional["matplotlib"] == metadata.version("matplotlib")
    assert optional["pandas"] == metadata.version("pandas")
    assert None not in optional.values()


def test_kernels_are_reported_loaded_with_their_build():
    from skrank._engine import _grouping

    kernels = _show_versions._kernels_info()
    assert kernels["loaded"] == "4 of 4" and kernels["missing"] == "none"
    assert kernels["location"] in _grouping.__file__
    # Cython 3 names its shared module after its version: the version the
    # kernels were generated with is a dotted version number
    major = kernels["Cython"].split(".")[0]
    assert major.isdigit() and int(major) >= 3
    assert kernels["debug build"] in ("yes", "no")


def test_a_missing_kernel_is_named(monkeypatch):
    kernels = (*_show_versions._KERNELS, "skrank._engine._no_such_kernel")
    monkeypatch.setattr(_show_versions, "_KERNELS", kernels)
    info = _show_versions._kernels_info()
    assert info["loaded"] == "4 of 5"
    assert "skrank._engine._no_such_kernel" in info["missing"]


def test_thread_setting_is_that_of_skrank_threads(monkeypatch):
    monkeypatch.setenv("SKRANK_NUM_THREADS", "1")
    with _threads.use_threads(1):
        info = _show_versions._threads_info()
    assert info["SKRANK_NUM_THREADS"] == "1"
    assert info["limit"] == 1 and info["threads used"] == 1
    monkeypatch.delenv("SKRANK_NUM_THREADS")
    info = _show_versions._threads_info()
    assert info["SKRANK_NUM_THREADS"] == "not set"
    assert info["threads used"] == _threads.threads()


def test_version_option_prints_the_short_form(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == _show_versions.short_version()
    assert "\n" not in out
    assert out.startswith(f"skrank {skrank.__version__} (compiled kernels: 4 of 4")
    assert f"Python {platform.python_version()}" in out
    assert f"numpy {metadata.version('numpy')}" in out
