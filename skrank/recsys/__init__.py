"""Recommender evaluation: score matrices, exclusion and top-k lists onto
skrank's engine, exact under ties."""

from ._lists import TopLists

__all__ = ["TopLists"]
