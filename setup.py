"""Build of skrank's optional compiled kernels (the rest is in pyproject.toml).

The extension is optional: where it cannot be compiled, skrank installs
without it and the engine uses its numpy code (see ``skrank/_native.py``).
"""

import sys

from setuptools import Extension, setup

# no fused multiply-add: the kernels round as the numpy code they stand for
flags = [] if sys.platform == "win32" else ["-O3", "-ffp-contract=off"]

setup(
    ext_modules=[
        Extension(
            "skrank._ckernels",
            ["skrank/_ckernels.c"],
            extra_compile_args=flags,
            optional=True,
        )
    ]
)
