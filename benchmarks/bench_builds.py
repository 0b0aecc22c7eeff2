"""Two builds of skrank on the same benchmark, their runs interleaved.

Runs a benchmark script of this folder (``bench_ndcg.py``,
``bench_evaluate.py``, ``bench_trec.py``, ...) alternately against two
source trees, each with its compiled modules built in place (``python
setup.py build_ext --inplace``), ``--rounds`` times each, every run in a
fresh process with ``PYTHONPATH`` set to the tree. The benchmark scripts and
their data are taken from the current checkout, so both builds do the same
work; a script that names a row of the other build only (a row that one
build cannot run) shows it as missing there.

Every table row of the script's output (a line of a table headed ``tool``)
is matched by its section (the line in brackets above the table) and its
name. For each build the script keeps the best time of every row over the
rounds, and the row's ratio to the table's first row (the floor, or the row
named by ``--floor``) taken in each process, between times of the same
process (the benchmark scripts interleave a table's rows, so that the row
and its floor see the same load, the same data and the same state of the
process's memory), the median over the rounds. It prints both builds'
times and their change, and both builds' ratios and their change. Ratios
to the floor are what the targets are stated in; they hold under load
where absolute times do not, and alternating the builds lets a slow spell
of a shared machine fall on both.

``--threads N`` sets ``SKRANK_NUM_THREADS=N`` in every run (both builds
read it at import); without it, the environment's setting holds.

Usage::

    python benchmarks/bench_builds.py --before ../old --after . \\
        --rounds 3 --threads 1 bench_ndcg.py -- --queries 20000

Arguments after ``--`` go to the benchmark script.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# a row: its name, then its time (always printed with decimals)
_ROW = re.compile(r"^(?P<name>.+?)\s+(?P<time>-?\d+\.\d+)(\s|$)")


def parse_tables(text: str) -> dict:
    """``{(section, row name): seconds}`` of the table rows of ``text``.

    A table starts at a line beginning with ``tool`` (and a line of dashes
    under it, if any) and ends at a blank line; its section is the nearest
    line above that starts with ``[``. A row is its name and then numbers;
    the first number with decimals is the time in milliseconds (seconds
    where the header says ``time (s)``).
    """
    rows = {}
    lines = text.splitlines()
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("["):
            section = line.split("]")[0] + "]"
        if line.startswith("tool "):
            scale = 1.0 if "time (s)" in line else 1e-3
            order = 0
            i += 1
            if i < len(lines) and set(lines[i].strip()) == {"-"}:
                i += 1
            while i < len(lines) and lines[i].strip():
                found = _ROW.match(lines[i].strip())
                if found:
                    seconds = float(found["time"]) * scale
                    rows[(section, found["name"])] = (order, seconds)
                    order += 1
                i += 1
        i += 1
    return rows


def run_once(tree: Path, script: Path, args: list[str], threads=None) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree))
    if threads is not None:
        env["SKRANK_NUM_THREADS"] = str(threads)
    done = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(
            f"{script.name} failed in {tree} (exit {done.returncode}):\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    return done.stdout


def best_of(runs: list[dict]) -> dict:
    best = {}
    for rows in runs:
        for key, (order, seconds) in rows.items():
            if key not in best or seconds < best[key][1]:
                best[key] = (order, seconds)
    return best


def ratios(rows: dict, floor: str | None = None) -> dict:
    """Each row's time over its section's floor, in one run: the row named
    ``floor``, else the first row of the section's table."""
    floors = {}
    for (section, name), (order, seconds) in rows.items():
        if (name == floor) if floor else order == 0:
            floors[section] = seconds
    return {
        key: seconds / floors[key[0]]
        for key, (_, seconds) in rows.items()
        if floors.get(key[0])
    }


def median_ratios(runs: list[dict], floor: str | None = None) -> dict:
    """The median over the runs of each row's ratio to its floor, each
    ratio taken within one run (one process)."""
    per_run = [ratios(rows, floor) for rows in runs]
    out = {}
    for key in {key for r in per_run for key in r}:
        values = sorted(r[key] for r in per_run if key in r)
        half = len(values) // 2
        out[key] = (
            values[half] if len(values) % 2 else (values[half - 1] + values[half]) / 2
        )
    return out


def change(before, after) -> str:
    """``after`` over ``before`` as a signed percentage ("" if one is missing)."""
    return (
        "" if before is None or after is None else f"{(after / before - 1) * 100:+.1f}%"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, type=Path)
    parser.add_argument("--after", required=True, type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--floor", help="the row the others are divided by (default: the first)"
    )
    parser.add_argument(
        "--threads", type=int, help="SKRANK_NUM_THREADS of every run (default: unset)"
    )
    parser.add_argument("script")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    a = parser.parse_args(argv)
    script = (HERE / a.script).resolve()
    extra = [x for x in a.script_args if x != "--"]
    trees = {"before": a.before.resolve(), "after": a.after.resolve()}
    runs = {name: [] for name in trees}
    for r in range(a.rounds):
        for name, tree in trees.items() if r % 2 == 0 else reversed(trees.items()):
            runs[name].append(parse_tables(run_once(tree, script, extra, a.threads)))
            print(f"round {r + 1}/{a.rounds}: {name} done", file=sys.stderr)
    best = {name: best_of(v) for name, v in runs.items()}
    ratio = {name: median_ratios(v, a.floor) for name, v in runs.items()}
    keys = sorted(
        set(best["before"]) | set(best["after"]),
        key=lambda k: (k[0], (best["after"].get(k) or best["before"][k])[0]),
    )
    print(
        f"{a.script} {' '.join(extra)} (SKRANK_NUM_THREADS="
        f"{a.threads or os.environ.get('SKRANK_NUM_THREADS', 'unset')}): best "
        f"time of {a.rounds} interleaved "
        "rounds; ratio to the floor within each process, median of the rounds"
    )
    head = (
        f"{'row':<54} {'before ms':>9} {'after ms':>9} {'change':>7} "
        f"{'before x':>8} {'after x':>8} {'change':>7}"
    )
    section = None
    for key in keys:
        if key[0] != section:
            section = key[0]
            print(f"\n{section}\n{head}\n{'-' * len(head)}")
        ms = [best[name].get(key, (0, None))[1] for name in ("before", "after")]
        x = [ratio[name].get(key) for name in ("before", "after")]
        cells = ["—" if v is None else f"{v * 1e3:.1f}" for v in ms]
        cells += ["—" if v is None else f"{v:.3f}" for v in x]
        print(
            f"{key[1][:54]:<54} {cells[0]:>9} {cells[1]:>9} {change(*ms):>7} "
            f"{cells[2]:>8} {cells[3]:>8} {change(*x):>7}"
        )


if __name__ == "__main__":
    main()
