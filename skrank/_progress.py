"""Progress reports of the long-running entry points (``verbose=``).

One mechanism for every function that takes ``verbose`` (scikit-learn's
convention: ``0`` is silent and the default, ``1`` shows progress, ``2`` adds
a line for each stage): :func:`progress` opens a :class:`Progress` on
standard error, a tqdm bar when tqdm is installed (``pip install
skrank[progress]``) and otherwise plain lines, at most one per second. The
caller reports the work it already does in pieces (the bytes of a file's
chunks, the queries of the engine's blocks, the resampling stages of a
comparison) with :meth:`Progress.update`, or walks its pieces through
:func:`tracked`; no loop is ever added to report progress. At ``verbose=0``
a :class:`Progress` does nothing and costs one attribute check per piece.
Work whose progress another tool shows (Dask, Spark) writes its stages with
:func:`say`.

Any new long-running entry point (the fusion of runs, for one) reports its
progress the same way::

    verbose = check_verbose(verbose, "fuse")
    with progress(verbose, total=n_runs, desc="fuse", unit="run") as bar:
        for run in runs:  # a loop the function has anyway
            ...
            bar.update(1)
"""

from __future__ import annotations

import sys
import time

from ._validation import BOOL, Interval, validate_params

__all__ = ["Progress", "check_verbose", "progress", "say", "tracked"]

#: The constraints of a ``verbose`` parameter: an int >= 0, or a bool
#: (``True`` is ``1``, as in scikit-learn).
VERBOSE_CONSTRAINTS = {"verbose": [Interval("int", 0, None, "left"), BOOL]}

#: Seconds between two plain progress lines.
INTERVAL = 1.0


def check_verbose(verbose, caller: str) -> int:
    """``verbose`` as an int, or an error naming ``caller``.

    Parameters
    ----------
    verbose : int or bool
        The ``verbose`` argument of ``caller``.
    caller : str
        The public function named in the error.

    Returns
    -------
    level : int
        ``0`` (silent), ``1`` (progress) or more (progress and stages).

    Raises
    ------
    ValueError
        If ``verbose`` is not an int >= 0 or a bool (skrank's
        ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    >>> from skrank._progress import check_verbose
    >>> check_verbose(True, "read_run")
    1
    """
    if not any(c.is_satisfied_by(verbose) for c in VERBOSE_CONSTRAINTS["verbose"]):
        # the error of validate_params, called only when it raises: a call
        # whose options are validated in one call stays at one
        validate_params(caller, {"verbose": verbose}, VERBOSE_CONSTRAINTS)
    return int(verbose)


def _tqdm():
    """tqdm's bar class, or ``None`` when tqdm is not installed."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def _amount(n, unit) -> str:
    if unit == "B":
        for size, name in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
            if n >= size:
                return f"{n / size:.1f} {name}"
        return f"{n} B"
    return f"{n:,} {unit}"


class Progress:
    """The progress of one task on standard error; a context manager.

    Made by :func:`progress`. ``verbose=0`` writes nothing. Otherwise a tqdm
    bar is drawn when tqdm is installed, else a plain line
    ``desc: done/total unit (pct%), elapsed`` is written at most once per
    :data:`INTERVAL` seconds, and one line when the task ends (the work
    done and the time it took).

    Parameters
    ----------
    verbose : int
        ``0``: silent; ``1``: progress; ``2`` or more: also the lines of
        :meth:`note` of level 2.
    total : int or None
        The amount of work, or ``None`` when it is not known beforehand
        (a compressed file).
    desc : str
        What is done, written before the progress.
    unit : str, default="it"
        The unit of the amounts; ``"B"`` writes bytes in KiB, MiB and GiB.
    """

    def __init__(self, verbose, total, desc, unit="it"):
        self.verbose = verbose
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = 0
        self._bar = None
        self._start = self._last = time.monotonic()
        if verbose:
            tqdm = _tqdm()
            if tqdm is not None:
                self._bar = tqdm(
                    total=total,
                    desc=desc,
                    unit=unit,
                    unit_scale=unit == "B",
                    unit_divisor=1024 if unit == "B" else 1000,
                    file=sys.stderr,
                    leave=True,
                    mininterval=0.5,
                    dynamic_ncols=True,
                )

    def update(self, n=1):
        """Add ``n`` to the work done (a plain line when one is due)."""
        if not self.verbose:
            return
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.monotonic()
        if now - self._last >= INTERVAL:
            self._last = now
            self._write(self._line(now))

    def add_total(self, n):
        """Add ``n`` to the amount of work (found as the work goes on)."""
        if not self.verbose:
            return
        self.total = (self.total or 0) + n
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def note(self, text, level=2):
        """Write ``text`` on its own line when ``verbose >= level``."""
        if self.verbose >= level:
            if self._bar is not None:
                self._bar.write(f"{self.desc}: {text}", file=sys.stderr)
            else:
                say(self.verbose, self.desc, text, level)

    def close(self):
        """End the task: close the bar, or write the last plain line."""
        if not self.verbose:
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        else:
            now = time.monotonic()
            self._write(
                f"{self.desc}: {_amount(self.n, self.unit)} "
                f"in {now - self._start:.1f} s"
            )
        self.verbose = 0

    def _line(self, now):
        done = _amount(self.n, self.unit)
        if self.total:
            share = 100.0 * self.n / self.total
            done = f"{done} of {_amount(self.total, self.unit)} ({share:.0f}%)"
        return f"{self.desc}: {done}, {now - self._start:.1f} s"

    @staticmethod
    def _write(line):
        say(1, "", line)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def progress(verbose, total=None, *, desc, unit="it") -> Progress:
    """A :class:`Progress` of ``total`` units of work, named ``desc``.

    Parameters
    ----------
    verbose : int
        A level checked by :func:`check_verbose`; ``0`` writes nothing.
    total : int or None, default=None
        The amount of work, if known.
    desc : str
        What is done (the public function and its object, such as
        ``"read_run run.txt"``).
    unit : str, default="it"
        The unit of ``total`` and of :meth:`Progress.update`.

    Returns
    -------
    progress : Progress
        A context manager; it ends the report when the block ends.

    Examples
    --------
    >>> from skrank._progress import progress
    >>> with progress(0, 3, desc="silent") as bar:
    ...     for _ in range(3):
    ...         bar.update()
    >>> bar.n
    0
    """
    return Progress(verbose, total, desc, unit)


def say(verbose, desc, text, level=1):
    """Write the line ``desc: text`` on standard error when ``verbose >=
    level`` (a stage of work whose progress another tool shows).

    Examples
    --------
    >>> from skrank._progress import say
    >>> say(0, "skrank.spark.evaluate", "grouping the queries")
    """
    if verbose >= level:
        print(f"{desc}: {text}" if desc else text, file=sys.stderr, flush=True)


def tracked(pieces, bar, size=len):
    """Yield ``pieces`` as they are, adding ``size(piece)`` to ``bar`` as
    each is handed out (the pieces a computation consumes anyway).

    Examples
    --------
    >>> from skrank._progress import progress, tracked
    >>> bar = progress(0, desc="silent")
    >>> [len(p) for p in tracked([[1, 2], [3]], bar)]
    [2, 1]
    """
    for piece in pieces:
        bar.update(size(piece))
        yield piece
