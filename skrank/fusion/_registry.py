"""One registry mechanism for the fusion methods and the normalisations:
declarations found by name or alias, case-insensitively."""

from __future__ import annotations


class Registry:
    """Declarations (objects with ``name`` and ``aliases``) by spelling.

    A spelling given to two declarations is an error when the registry is
    built, so that a name always means one declaration.
    """

    def __init__(self, declarations):
        self.declarations = tuple(declarations)
        self._by_spelling = {}
        for d in self.declarations:
            for key in (d.name, *d.aliases):
                key = key.lower()
                if key in self._by_spelling:
                    raise ValueError(f"the spelling {key!r} names two declarations")
                self._by_spelling[key] = d

    def find(self, name):
        """The declaration of a name or alias (case-insensitive), or None."""
        if not isinstance(name, str):
            return None
        return self._by_spelling.get(name.lower())

    def names(self) -> list:
        """The canonical names, sorted."""
        return sorted(d.name for d in self.declarations)

    def spellings(self) -> list:
        """Every name and alias, sorted."""
        return sorted(self._by_spelling)
