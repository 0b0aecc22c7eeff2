"""The option values every layer of skrank reads: tie rules, what a
non-positive score means, gain functions.

A leaf module (it imports nothing from skrank), so that validation, the
docstring fillers and the engine share one spelling of each choice.
"""

#: The tie rules a user chooses from (``ties=``). The engine also knows
#: ``"sklearn"``, scikit-learn's ``ignore_ties=True`` order, and
#: ``"trec_eval"``, a secondary key (for TREC runs, the document id).
TIES = ("average", "optimistic", "pessimistic", "first")
#: The tie rules that give a metric's bounds over the orderings of tied
#: scores (relevant items of each tie group last / first): the smallest and
#: largest values of a metric that rewards relevant items early. A metric
#: that does not (coverage, novelty, diversity) has no bounds under them.
BOUND_TIES = ("optimistic", "pessimistic")
#: What a score <= 0 means (``nonpositive=``): an ordinary score, or an item
#: that is not retrieved (never a hit; its relevance still counts in R).
NONPOSITIVE = ("ordinary", "not_retrieved")
#: The gain functions of DCG-based metrics (besides a table of gains by grade).
GAINS = ("linear", "exponential")

__all__ = ["BOUND_TIES", "GAINS", "NONPOSITIVE", "TIES"]
