"""The README's Python examples run and print what it shows."""

import doctest
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_examples():
    result = doctest.testfile(
        str(README), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 3
    assert result.failed == 0


def _commands(text):
    """The shell lines of a text that create the virtual environment."""
    return [line.strip() for line in text.splitlines() if "python3 -m venv" in line]


def test_ci_runs_exactly_the_readme_test_command():
    # The README's second set-up command (build a wheel of the checkout,
    # install it with the test extra, run the suite on the installed wheel,
    # then the tests of the kernels' debug build) is the one line .ci/run
    # executes.
    readme = _commands(README.read_text())
    ci = _commands((README.parent / ".ci" / "run").read_text())
    assert len(ci) == 1
    assert ci[0] == readme[1]
    assert "pip wheel" in ci[0] and "[test]" in ci[0]
    assert "SKRANK_EXPECT_INSTALLED=1" in ci[0]
    assert "--pyargs skrank" in ci[0]
    assert ci[0].endswith("bash tools/test-debug-build.sh")
