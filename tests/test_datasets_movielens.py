"""skrank.datasets.load_movielens_100k: MovieLens-100k read from files on the
machine (RecBole's package data or GroupLens' files), never downloaded.

The small files written here hold the same ratings in RecBole's atomic-file
format and in GroupLens' format; the real data comes from RecBole's wheel,
which the README's test command installs without its dependencies.
"""

import importlib.util

import numpy as np
import pytest
import scipy.sparse as sp

from skrank.datasets import load_movielens_100k

# user, item, rating, timestamp: user 10 has 5 ratings, user 3 has 2
RATINGS = [
    (10, 2, 5, 100),
    (10, 7, 3, 400),
    (3, 2, 4, 50),
    (10, 1, 1, 300),
    (10, 9, 4, 200),
    (3, 9, 2, 60),
    (10, 4, 5, 500),
]
# item id, title, genres
ITEMS = [
    (1, "Toy Story (1995)", ("Animation", "Children's", "Comedy")),
    (2, "GoldenEye (1995)", ("Action", "Adventure", "Thriller")),
    (4, "Get Shorty (1995)", ("Action", "Comedy", "Drama")),
    (7, "Twelve Monkeys (1995)", ("Drama", "Sci-Fi")),
    (9, "Dead Man Walking (1995)", ("Drama",)),
]
GENRES = (
    "unknown Action Adventure Animation Children's Comedy Crime Documentary Drama "
    "Fantasy Film-Noir Horror Musical Mystery Romance Sci-Fi Thriller War Western"
).split()


def _recbole(folder):
    folder.mkdir()
    lines = ["user_id:token\titem_id:token\trating:float\ttimestamp:float"]
    lines += [f"{u}\t{i}\t{r}\t{t}" for u, i, r, t in RATINGS]
    (folder / "ml-100k.inter").write_text("\n".join(lines) + "\n")
    lines = [
        "item_id:token\tmovie_title:token_seq\trelease_year:token\tclass:token_seq"
    ]
    lines += [f"{i}\t{title[:-7]}\t1995\t{' '.join(g)}" for i, title, g in ITEMS]
    (folder / "ml-100k.item").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _grouplens(folder):
    folder.mkdir()
    lines = [f"{u}\t{i}\t{r}\t{t}" for u, i, r, t in RATINGS]
    (folder / "u.data").write_text("\n".join(lines) + "\n")
    lines = []
    for i, title, g in ITEMS:
        flags = "|".join("1" if name in g else "0" for name in GENRES)
        lines.append(f"{i}|{title}|01-Jan-1995||http://example.org|{flags}")
    (folder / "u.item").write_text("\n".join(lines) + "\n", encoding="latin-1")
    return folder


@pytest.fixture(params=["recbole", "grouplens"])
def home(request, tmp_path):
    write = _recbole if request.param == "recbole" else _grouplens
    return write(tmp_path / request.param)


def test_matrices_ids_and_genres(home):
    ml = load_movielens_100k(data_home=home, test_size=0.0, relevance="rating")
    assert ml.user_ids.tolist() == [3, 10] and ml.item_ids.tolist() == [1, 2, 4, 7, 9]
    assert sp.isspmatrix_csr(ml.train) and ml.train.dtype == np.float64
    assert ml.test.nnz == 0
    # the ratings table above, rows users (3, 10), columns items (1, 2, 4, 7, 9)
    np.testing.assert_array_equal(
        ml.train.toarray(), [[0, 4, 0, 0, 2], [1, 5, 5, 3, 4]]
    )
    assert ml.feature_names == GENRES
    feats = ml.item_features.toarray()
    for row, (_, _, genres) in enumerate(ITEMS):
        assert {GENRES[j] for j in np.flatnonzero(feats[row])} == set(genres)
    assert ml.source == str(home)


def test_binary_min_rating_and_temporal_split(home):
    ml = load_movielens_100k(
        data_home=home, min_rating=3, split="temporal", test_size=0.5
    )
    # ratings >= 3: user 3 keeps item 2 (t=50); user 10 keeps items 2 (t=100),
    # 9 (t=200), 7 (t=400), 4 (t=500). Half, rounded half up, is held out:
    # user 3 round(0.5 + 0.5) = 1 (its only one), user 10 round(2 + 0.5) = 2,
    # the latest two, items 4 and 7.
    np.testing.assert_array_equal(ml.test.toarray(), [[0, 1, 0, 0, 0], [0, 0, 1, 1, 0]])
    np.testing.assert_array_equal(
        ml.train.toarray(), [[0, 0, 0, 0, 0], [0, 1, 0, 0, 1]]
    )


def test_random_split_is_a_per_user_share_and_seeded(home):
    a = load_movielens_100k(data_home=home, test_size=0.4, random_state=3)
    b = load_movielens_100k(data_home=home, test_size=0.4, random_state=3)
    assert (a.test != b.test).nnz == 0
    assert a.train.multiply(a.test).nnz == 0
    assert (a.train + a.test).nnz == len(RATINGS)
    # user 3: round(0.8 + 0.5) = 1 held out; user 10: round(2 + 0.5) = 2
    assert np.diff(a.test.indptr).tolist() == [1, 2]


def test_both_formats_read_alike(tmp_path):
    a = load_movielens_100k(data_home=_recbole(tmp_path / "a"), random_state=0)
    b = load_movielens_100k(data_home=_grouplens(tmp_path / "b"), random_state=0)
    assert (a.train != b.train).nnz == 0 and (a.test != b.test).nnz == 0
    assert (a.item_features != b.item_features).nnz == 0
    assert a.titles.tolist() == [t[:-7] for _, t, _ in ITEMS]
    assert b.titles.tolist() == [t for _, t, _ in ITEMS]


def test_missing_files_and_bad_parameters(tmp_path):
    with pytest.raises(FileNotFoundError, match="holds neither pair"):
        load_movielens_100k(data_home=tmp_path)
    home = _recbole(tmp_path / "r")
    with pytest.raises(ValueError, match="'split'.*'random'.*Got 'last'"):
        load_movielens_100k(data_home=home, split="last")
    with pytest.raises(ValueError, match="'min_rating'"):
        load_movielens_100k(data_home=home, min_rating=6)
    with pytest.raises(ValueError, match="'test_size'"):
        load_movielens_100k(data_home=home, test_size=1.0)
    with pytest.raises(TypeError, match="'data_home'.*str or a path.*int"):
        load_movielens_100k(data_home=3)


def test_rated_twice_and_unknown_item_refused(tmp_path):
    home = _recbole(tmp_path / "r")
    with open(home / "ml-100k.inter", "a") as f:
        f.write("3\t2\t5\t70\n")
    with pytest.raises(ValueError, match="rated twice"):
        load_movielens_100k(data_home=home)
    home = _grouplens(tmp_path / "g")
    with open(home / "u.data", "a") as f:
        f.write("3\t8\t5\t70\n")
    with pytest.raises(ValueError, match="1 items that the item file"):
        load_movielens_100k(data_home=home)


def test_real_data_from_recbole_package():
    # The README's test command installs RecBole's wheel (no dependencies),
    # which ships ml-100k; GroupLens' README: "100,000 ratings (1-5) from 943
    # users on 1682 movies. Each user has rated at least 20 movies."
    assert importlib.util.find_spec("recbole") is not None, (
        "RecBole's package data is not installed: pip install --no-deps recbole"
    )
    ml = load_movielens_100k(relevance="rating", random_state=0)
    assert ml.train.shape == (943, 1682)
    assert ml.train.nnz + ml.test.nnz == 100_000
    everything = ml.train + ml.test
    assert np.diff(everything.indptr).min() >= 20
    assert set(np.unique(everything.data)) == {1.0, 2.0, 3.0, 4.0, 5.0}
    # each user's share held out, rounded half up
    counts = np.diff(everything.indptr)
    np.testing.assert_array_equal(np.diff(ml.test.indptr), np.floor(0.2 * counts + 0.5))
    # every film has a genre, "unknown" included
    assert (np.diff(ml.item_features.indptr) >= 1).all()
