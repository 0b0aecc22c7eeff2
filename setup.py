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


# the Cython sources, which the source distribution carries as they are
# (with the .pxd files they cimport, MANIFEST.in); they are translated to C
# when the kernels are built, not when a source distribution is made
sources = sorted(glob("skrank/**/*.pyx", recursive=True))
if not sources:
    raise SystemExit(
        "skrank: no Cython sources (skrank/**/*.pyx) next to setup.py; the "
        "compiled kernels cannot be built from this tree"
    )
extensions = [
    Extension(
        module_name(path),
        [path],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=flags,
        extra_link_args=link,
    )
    for path in sources
]


class BuildKernels(build_ext):
    """build_ext that translates the Cython sources first and says what is
    missing when the kernels cannot be built."""

    def finalize_options(self):
        import numpy as np
        from Cython.Build import cythonize

        extensions = self.distribution.ext_modules
        for extension in extensions:
            if np.get_include() not in extension.include_dirs:
                extension.include_dirs.append(np.get_include())
        # generated C apart for the two builds: Cython regenerates a file
        # only when its .pyx is newer, not when the directives change
        self.distribution.ext_modules = cythonize(
            extensions,
            compiler_directives=directives,
            build_dir="build/cython-debug" if DEBUG else "build/cython",
        )
        super().finalize_options()

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


setup(cmdclass={"build_ext": BuildKernels}, ext_modules=extensions)
