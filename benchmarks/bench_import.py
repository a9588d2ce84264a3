"""``import txcript`` against ``import click``: the library's import stays under 1.5x.

Both are whole processes of the same interpreter, interleaved round by round, judged on the
CPU median (wall time on a shared 2-core machine is noise). A third row times the first use
of a public name (``txcript.list_harnesses()``), which is where the library's modules load.

Usage::

    .venv/bin/python benchmarks/bench_import.py [--repeat 21]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from timing import child_env, median_of, run_child

COMMANDS = {
    "python -c pass": "pass",
    "import click (the floor)": "import click",
    "import txcript": "import txcript",
    "import txcript; txcript.list_harnesses()": "import txcript; txcript.list_harnesses()",
}
TARGET = 1.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    repeat = parser.parse_args().repeat
    env = child_env()
    runs: dict[str, list] = {name: [] for name in COMMANDS}  # type: ignore[type-arg]
    for _ in range(repeat):
        for name, code in COMMANDS.items():
            runs[name].append(run_child([sys.executable, "-c", code], env, stdout="discard"))
    medians = {name: median_of(done) for name, done in runs.items()}
    floor = medians["import click (the floor)"].cpu
    print("| command | CPU median (ms) | × `import click` |\n|---|---|---|")
    for name, median in medians.items():
        print(f"| `{name}` | {median.cpu * 1000:.1f} | {median.cpu / floor:.2f}× |")
    ratio = medians["import txcript"].cpu / floor
    verdict = "meets" if ratio <= TARGET else "misses"
    print(f"\n`import txcript` is {ratio:.2f}× `import click`: {verdict} the {TARGET}× target")


if __name__ == "__main__":
    main()
