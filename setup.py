"""Build of skrank's compiled kernels (the rest is in pyproject.toml).

The kernels are Cython modules (``skrank/**/*.pyx``) and are part of the
package: where they cannot be compiled, installation fails. Set
``SKRANK_DEBUG_BUILD=1`` to build them with Cython's bounds, wrap-around
and initialisation checks on and with AddressSanitizer and
UndefinedBehaviorSanitizer (see the README's Development section).
"""

import os
import sys
from glob import glob

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("SKRANK_DEBUG_BUILD", "") not in ("", "0")

# no fused multiply-add: the kernels round as the formulas they stand for
flags = [] if sys.platform == "win32" else ["-O3", "-ffp-contract=off"]
link = []
directives = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "overflowcheck": False,
}
if DEBUG:
    directives.update(boundscheck=True, wraparound=True, initializedcheck=True)
    if sys.platform != "win32":
        sanitize = "-fsanitize=address,undefined"
        flags = ["-O1", "-g", "-ffp-contract=off", "-fno-omit-frame-pointer", sanitize]
        link = [sanitize]


def module_name(path):
    return os.path.splitext(path)[0].replace(os.sep, ".").replace("/", ".")


extensions = [
    Extension(
        module_name(path),
        [path],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=flags,
        extra_link_args=link,
    )
    for path in sorted(glob("skrank/**/*.pyx", recursive=True))
]


class BuildKernels(build_ext):
    """build_ext that says what is missing when the kernels cannot be built."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # the compiler's or the platform's error
            raise SystemExit(
                "skrank: its compiled kernels could not be built "
                f"({type(exc).__name__}: {exc}). Building skrank from source "
                "needs a C compiler (gcc, clang or MSVC) and the Python "
                "development headers (Python.h; on Debian/Ubuntu the package "
                "python3-dev); or install a prebuilt wheel of skrank."
            ) from exc


# generated C apart for the two builds: Cython regenerates a file only when
# its .pyx is newer, not when the directives change
setup(
    cmdclass={"build_ext": BuildKernels},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        build_dir="build/cython-debug" if DEBUG else "build/cython",
    ),
)
