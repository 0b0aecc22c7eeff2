"""MovieLens-100k, read from files already on the machine.

:func:`load_movielens_100k` reads the 100,000 ratings of 943 users on 1,682
films collected by GroupLens (Harper & Konstan, "The MovieLens Datasets:
History and Context", ACM TiiS 5(4), 2015) from one of two sources, and
never downloads:

* the package data of RecBole (``pip install --no-deps recbole``: its wheel
  ships ``recbole/dataset_example/ml-100k``, in RecBole's atomic-file
  format, ``ml-100k.inter`` and ``ml-100k.item``), found without importing
  RecBole;
* a folder given as ``data_home`` holding either those atomic files or
  GroupLens' own ``u.data`` and ``u.item`` (the ``ml-100k.zip`` of
  https://grouplens.org/datasets/movielens/100k/, unpacked).

The data is under GroupLens' terms of use; skrank does not ship it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_random_state

from ._validation import (
    Interval,
    InvalidParameterError,
    Options,
    plain,
    validate_params,
)

__all__ = ["GENRES", "hold_out", "load_movielens_100k"]

_CALLER = "load_movielens_100k"

#: The 19 genres of MovieLens-100k, in the order of GroupLens' ``u.item``
#: flags (and ``u.genre``).
GENRES = (
    "unknown",
    "Action",
    "Adventure",
    "Animation",
    "Children's",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Film-Noir",
    "Horror",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
    "Western",
)

_RECBOLE = ("ml-100k.inter", "ml-100k.item")
_GROUPLENS = ("u.data", "u.item")


def hold_out(rows, keys, n_users, test_size):
    """Which interactions a per-user split holds out: each user's
    ``test_size`` share (rounded half up) with the smallest ``keys``.

    ``rows`` are the users of the interactions; ``keys`` order each user's
    interactions (random numbers for a random split, times for a temporal
    one; equal keys keep the input order). Returns a boolean mask.
    """
    counts = np.bincount(rows, minlength=n_users)
    n_test = np.floor(test_size * counts + 0.5).astype(np.int64)
    order = np.lexsort((np.arange(rows.shape[0]), keys, rows))
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0]) - first[rows[order]]
    return rank < n_test[rows]


def _recbole_folder():
    spec = importlib.util.find_spec("recbole")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        folder = Path(root) / "dataset_example" / "ml-100k"
        if all((folder / f).is_file() for f in _RECBOLE):
            return folder
    return None


def _locate(data_home):
    if data_home is None:
        folder = _recbole_folder()
        if folder is None:
            raise FileNotFoundError(
                f"{_CALLER} found no MovieLens-100k on this machine and does not "
                "download it: install RecBole's package data with 'pip install "
                "--no-deps recbole' (its wheel ships ml-100k), or pass data_home= "
                "a folder holding ml-100k.inter and ml-100k.item (RecBole's "
                "files) or u.data and u.item (GroupLens' ml-100k.zip, unpacked)."
            )
        return folder, "recbole"
    folder = Path(data_home)
    for names, kind in ((_RECBOLE, "recbole"), (_GROUPLENS, "grouplens")):
        if all((folder / f).is_file() for f in names):
            return folder, kind
    raise FileNotFoundError(
        f"The parameter 'data_home' of {_CALLER} must be a folder holding "
        "ml-100k.inter and ml-100k.item (RecBole's files) or u.data and u.item "
        f"(GroupLens' files); got {str(folder)!r}, which holds neither pair."
    )


def _read_ratings(folder, kind):
    """(user ids, item ids, ratings, timestamps) as int64 / float64 arrays."""
    if kind == "recbole":
        path, skip = folder / "ml-100k.inter", 1
    else:
        path, skip = folder / "u.data", 0
    try:
        table = np.loadtxt(path, delimiter="\t", skiprows=skip, ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{_CALLER} could not read {str(path)!r}: {exc}") from None
    if table.shape[1] != 4 or table.shape[0] == 0:
        raise ValueError(
            f"{_CALLER} expects 4 tab-separated columns (user, item, rating, "
            f"timestamp) in {str(path)!r}; got {plain(table.shape[1])} columns and "
            f"{plain(table.shape[0])} rows."
        )
    ids = table[:, :2]
    if not np.array_equal(ids, np.round(ids)):
        raise ValueError(
            f"{_CALLER} expects integer user and item ids in {str(path)!r}."
        )
    return (
        ids[:, 0].astype(np.int64),
        ids[:, 1].astype(np.int64),
        table[:, 2],
        table[:, 3],
    )


def _read_items(folder, kind):
    """(item ids, titles, genre flags (n, 19) bool) of the item file."""
    if kind == "recbole":
        path = folder / "ml-100k.item"
        lines = path.read_text(encoding="utf-8").splitlines()[1:]
        fields = [line.split("\t") for line in lines if line]
        ids = np.array([int(f[0]) for f in fields], dtype=np.int64)
        titles = np.array([f[1] for f in fields], dtype=object)
        genre_of = {g: j for j, g in enumerate(GENRES)}
        flags = np.zeros((len(fields), len(GENRES)), dtype=bool)
        for i, f in enumerate(fields):
            for token in f[3].split() if len(f) > 3 else ():
                if token not in genre_of:
                    raise ValueError(
                        f"{_CALLER} found an unknown genre {token!r} in {str(path)!r}."
                    )
                flags[i, genre_of[token]] = True
        return ids, titles, flags
    path = folder / "u.item"
    lines = path.read_text(encoding="latin-1").splitlines()
    fields = [line.split("|") for line in lines if line]
    ids = np.array([int(f[0]) for f in fields], dtype=np.int64)
    titles = np.array([f[1] for f in fields], dtype=object)
    flags = np.array(
        [[c == "1" for c in f[-len(GENRES) :]] for f in fields], dtype=bool
    )
    return ids, titles, flags.reshape(len(fields), len(GENRES))


def load_movielens_100k(
    *,
    data_home=None,
    relevance: str = "binary",
    min_rating: float = 1.0,
    split: str = "random",
    test_size: float = 0.2,
    random_state=None,
):
    """Load MovieLens-100k from files on the machine, split for testing.

    The 100,000 ratings (1 to 5) of 943 users on 1,682 films (GroupLens;
    Harper & Konstan, 2015), as user-item matrices: the ratings of at least
    ``min_rating`` are the interactions, and a ``test_size`` share of each
    user's interactions is held out as the test set, at random or the latest
    ones. Nothing is downloaded: the files come from RecBole's package data
    (``pip install --no-deps recbole``) or from ``data_home``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        A folder holding RecBole's ``ml-100k.inter`` and ``ml-100k.item`` or
        GroupLens' ``u.data`` and ``u.item``. None: RecBole's package data.
    relevance : {"binary", "rating"}, default="binary"
        The value of a stored interaction: 1 (implicit feedback) or the
        rating.
    min_rating : float, default=1.0
        Ratings below it are not interactions, in ``[1, 5]`` (4: only the
        films a user liked, a common reading as implicit feedback).
    split : {"random", "temporal"}, default="random"
        Which of each user's interactions are held out: a random share, or
        the latest by timestamp (equal timestamps: the file's order).
    test_size : float, default=0.2
        Share of each user's interactions held out, in ``[0, 1)``, rounded
        half up per user.
    random_state : int, RandomState instance or None, default=None
        Seed of the random split; pass an int for reproducible output.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        ``train`` and ``test``, CSR matrices (n_users, n_items) of
        ``float64`` with no cell stored in both; ``item_features``, a CSR
        matrix (n_items, 19) of the genre flags, whose columns
        ``feature_names`` names; ``titles``, each film's title;
        ``user_ids`` and ``item_ids``, the ids of the rows and the columns
        (``int64``, ascending); ``source``, the folder read.

    Raises
    ------
    FileNotFoundError
        If neither RecBole's package data nor ``data_home`` holds the files.
    ValueError
        If a parameter is out of its range or a file is not in its format.

    See Also
    --------
    make_interactions : Synthetic interactions, with no files needed.

    Examples
    --------
    >>> from skrank.datasets import load_movielens_100k
    >>> ml = load_movielens_100k(random_state=0)  # doctest: +SKIP
    >>> ml.train.shape, ml.train.nnz + ml.test.nnz  # doctest: +SKIP
    ((943, 1682), 100000)
    """
    validate_params(
        _CALLER,
        {
            "relevance": relevance,
            "min_rating": min_rating,
            "split": split,
            "test_size": test_size,
        },
        {
            "relevance": [Options(("binary", "rating"))],
            "min_rating": [Interval("real", 1, 5, "both")],
            "split": [Options(("random", "temporal"))],
            "test_size": [Interval("real", 0, 1, "left")],
        },
    )
    if data_home is not None and not isinstance(data_home, (str, Path)):
        raise InvalidParameterError(
            f"The parameter 'data_home' of {_CALLER} must be a str or a path; "
            f"got an instance of {type(data_home).__name__}."
        )
    rng = check_random_state(random_state)
    folder, kind = _locate(data_home)
    users, items, ratings, times = _read_ratings(folder, kind)
    item_ids, titles, flags = _read_items(folder, kind)

    user_ids, rows = np.unique(users, return_inverse=True)
    order = np.argsort(item_ids, kind="stable")
    item_ids, titles, flags = item_ids[order], titles[order], flags[order]
    cols = np.searchsorted(item_ids, items)
    known = cols < item_ids.shape[0]
    known[known] = item_ids[cols[known]] == items[known]
    if not known.all():
        raise ValueError(
            f"{_CALLER} found ratings of {plain(int((~known).sum()))} items that "
            f"the item file of {str(folder)!r} does not list."
        )
    key = rows * item_ids.shape[0] + cols
    if np.unique(key).shape[0] != key.shape[0]:
        raise ValueError(
            f"{_CALLER} found a (user, item) pair rated twice in {str(folder)!r}."
        )
    keep = ratings >= min_rating
    rows, cols, ratings, times = rows[keep], cols[keep], ratings[keep], times[keep]
    values = ratings if relevance == "rating" else np.ones(rows.shape[0])
    keys = rng.random_sample(rows.shape[0]) if split == "random" else -times
    held = hold_out(rows, keys, user_ids.shape[0], test_size)

    shape = (user_ids.shape[0], item_ids.shape[0])
    train = sp.csr_matrix((values[~held], (rows[~held], cols[~held])), shape=shape)
    test = sp.csr_matrix((values[held], (rows[held], cols[held])), shape=shape)
    return Bunch(
        train=train,
        test=test,
        item_features=sp.csr_matrix(flags.astype(np.float64)),
        feature_names=list(GENRES),
        titles=titles,
        user_ids=user_ids,
        item_ids=item_ids,
        source=str(folder),
    )
