"""Fixtures shared by the test modules of this directory."""

from __future__ import annotations

import pytest

from cli.cli_helpers import QRELS, RUN_A, RUN_B


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths
