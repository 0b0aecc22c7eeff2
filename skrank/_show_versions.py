"""What skrank runs on: versions, compiled kernels, threads.

:func:`show_versions` prints what a bug report needs (as scikit-learn's
``sklearn.show_versions``): Python and the platform, skrank and its core
dependencies, the optional packages found, whether skrank's compiled
kernels are loaded and how they were built, and how many threads skrank's
work may use. ``skrank --version`` prints :func:`short_version`, its one-line
form.
"""

from __future__ import annotations

import importlib
import os
import platform
import re
import sys
from importlib import metadata

__all__ = ["show_versions"]

#: The core dependencies (distribution names).
_CORE = ("numpy", "scipy", "scikit-learn")

#: Optional packages skrank uses when they are installed (distribution
#: names): the extras of ``pyproject.toml`` and the peer tools the
#: conventions reproduce.
_OPTIONAL = (
    "pandas",
    "polars",
    "pyarrow",
    "narwhals",
    "matplotlib",
    "tqdm",
    "dask",
    "distributed",
    "pyspark",
    "lightgbm",
    "xgboost",
    "pytrec-eval-terrier",
    "ranx",
    "ir-measures",
)

#: skrank's compiled kernels (Cython modules, built by ``setup.py``).
_KERNELS = (
    "skrank._engine._grouping",
    "skrank._engine._ordering",
    "skrank._engine._ranking",
    "skrank.measures._kernels",
)


def _version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _load_kernels() -> tuple[list, list]:
    """The compiled kernels' files, and the kernels that fail to import."""
    paths, missing = [], []
    for name in _KERNELS:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            missing.append(f"{name} ({exc})")
        else:
            paths.append(getattr(module, "__file__", None))
    return paths, missing


def _kernels_info() -> dict:
    """Whether the compiled kernels load, and what their binaries record.

    The Cython version comes from the shared module Cython 3 registers on
    import (``_cython_3_0_11``); a debug build (``SKRANK_DEBUG_BUILD=1``) is
    recognised by the AddressSanitizer it links; the compiler and, in a
    build with debugging information, its flags are read from the
    strings the compiler leaves in the binary.
    """
    paths, missing = _load_kernels()
    cython = sorted(
        name[len("_cython_") :].replace("_", ".")
        for name in sys.modules
        if re.fullmatch(r"_cython_\d+_\d+_\d+\w*", name)
    )
    compiler = flags = None
    debug = None
    for path in filter(None, paths[:1]):
        try:
            with open(path, "rb") as handle:
                binary = handle.read()
        except OSError:  # pragma: no cover - the module loaded from it
            break
        debug = b"__asan_init" in binary
        found = re.search(rb"GCC: \([^)]*\) [\w.\-]+|clang version [\w.\-]+", binary)
        compiler = found.group().decode("ascii", "replace") if found else None
        found = re.search(rb"GNU C[\w+]* [\w.\-]+( -[^\x00]+)", binary)
        flags = found.group(1).decode("ascii", "replace").strip() if found else None
    return {
        "loaded": f"{len(paths)} of {len(_KERNELS)}",
        "missing": ", ".join(missing) or "none",
        "location": os.path.dirname(paths[0]) if paths else None,
        "Cython": cython[-1] if cython else None,
        "debug build": None if debug is None else ("yes" if debug else "no"),
        "compiler": compiler,
        "compiler flags": flags or "not recorded",
    }


def _threads_info() -> dict:
    from . import _threads

    raw = os.environ.get("SKRANK_NUM_THREADS")
    return {
        "SKRANK_NUM_THREADS": raw if raw is not None else "not set",
        "limit": _threads.MAX_THREADS,
        "CPUs available": _threads._cpus(),
        "threads used": _threads.threads(),
    }


def _get_info() -> dict[str, dict]:
    """Everything :func:`show_versions` prints, section by section."""
    from . import __version__

    system = {
        "python": sys.version.replace("\n", " "),
        "executable": sys.executable,
        "machine": platform.platform(),
    }
    dependencies = {"skrank": __version__}
    dependencies.update((name, _version(name)) for name in _CORE)
    optional = {name: _version(name) for name in _OPTIONAL}
    return {
        "System": system,
        "Python dependencies": dependencies,
        "Optional dependencies": {k: v for k, v in optional.items() if v},
        "Compiled kernels": _kernels_info(),
        "Threads": _threads_info(),
    }


def short_version() -> str:
    """skrank's version, its kernels' state and its core dependencies, in one line.

    What ``skrank --version`` prints.

    Returns
    -------
    line : str
        For example ``skrank 0.1.0 (compiled kernels: 4 of 4 loaded; Python
        3.12.3, numpy 2.3.1, scipy 1.16.0, scikit-learn 1.7.1)``.
    """
    from . import __version__

    kernels = f"{len(_load_kernels()[0])} of {len(_KERNELS)}"
    core = ", ".join(f"{name} {_version(name)}" for name in _CORE)
    python = platform.python_version()
    return (
        f"skrank {__version__} (compiled kernels: {kernels} loaded; "
        f"Python {python}, {core})"
    )


def show_versions() -> None:
    """Print what skrank runs on, for bug reports.

    Prints, section by section: Python and the platform; skrank, numpy,
    scipy and scikit-learn; the optional packages that are installed (pandas,
    polars, pyarrow, matplotlib, tqdm, Dask, Spark, LightGBM, XGBoost and the
    peer tools the conventions reproduce), with their versions; whether
    skrank's compiled kernels are loaded, where from, the Cython version that
    generated them, whether they are a debug build (``SKRANK_DEBUG_BUILD=1``)
    and the compiler (and its flags, when the binary records them); and the
    thread setting (``SKRANK_NUM_THREADS``, the limit in force, the CPUs this
    process may run on and the threads skrank's work uses; see
    :ref:`performance`).

    ``skrank --version`` prints the one-line form.

    See Also
    --------
    sklearn.show_versions : The same report for scikit-learn.

    Examples
    --------
    >>> import skrank
    >>> skrank.show_versions()  # doctest: +ELLIPSIS
    <BLANKLINE>
    System:
    ...
    Compiled kernels:
    ...
    """
    for section, entries in _get_info().items():
        print(f"\n{section}:")
        if not entries:
            print("    (none found)")
        width = max((len(key) for key in entries), default=0)
        for key, value in entries.items():
            print(f"{key:>{width + 4}}: {value}")
