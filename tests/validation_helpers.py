"""A helper of the validation tests: the error of a bad argument, matched
to its whole message."""

import re

import pytest

from skrank._validation import InvalidParameterError


def raises_exactly(message):
    """pytest.raises for an InvalidParameterError with exactly ``message``."""
    return pytest.raises(InvalidParameterError, match="^" + re.escape(message) + "$")
