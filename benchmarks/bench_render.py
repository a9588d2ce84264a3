"""Benchmark the reading formats on a generated Cursor desktop store.

a) **export**: ``txcript export <10,000-bubble session> --format html`` as a real subprocess,
   against ``--format common`` of the same session (target: html <= 3x common), both next to
   the floor: fetching that session's bubble cells and composerData with ``sqlite3`` and
   ``json.loads``-ing each (the bare read of the same bytes).
b) **archive**: ``txcript archive --from cursor_desktop`` over every session of the store into a
   new directory, then the re-run over the unchanged store (which must write nothing), against
   the floor: every bubble and composerData cell of the store fetched and ``json.loads``-ed.

Results go to stdout as a table and to ``benchmarks/out/render.json``.

Usage::

    .venv/bin/python benchmarks/generate_cursor_store.py --out benchmarks/data/render \\
        --sessions 1000 --bubbles 80000 --size-gb 0.1
    .venv/bin/python benchmarks/bench_render.py --repeat 5
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_cursor_desktop import (  # noqa: E402 - the sibling benchmark's helpers
    baseline_load,
    isolated_env,
    machine,
    open_readonly,
    txcript_argv,
)
from timing import median_of, run_child, run_repeated, time_once, timed  # noqa: E402

DEFAULT_DATA = HERE / "data" / "render"
DEFAULT_OUT = HERE / "out" / "render.json"
EXPORT_RATIO_TARGET = 3.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    done = run_child(argv, env)
    return done.wall, done.text


def floor_store(db_path: Path) -> tuple[int, int]:
    """Every bubble and composerData cell of the store, fetched and parsed: (cells, bytes)."""
    cells = size = 0
    with open_readonly(db_path) as db:
        for lo, hi in (("bubbleId:", "bubbleId;"), ("composerData:", "composerData;")):
            for (value,) in db.execute(
                "SELECT value FROM cursorDiskKV WHERE key >= ? AND key < ?", (lo, hi)
            ):
                if value is not None:
                    json.loads(value)
                    cells += 1
                    size += len(value)
    return cells, size


def bench_export(data: Path, manifest: dict[str, Any], repeat: int, work: Path) -> dict[str, Any]:
    user_dir = data / "User"
    db_path = user_dir / "globalStorage" / "state.vscdb"
    huge = manifest["huge_session"]
    cid = huge["composer_id"] if isinstance(huge, dict) else huge
    env = isolated_env(user_dir, work / "home")
    results: dict[str, Any] = {"session": cid}
    for export_format in ("common", "html", "markdown"):
        out = work / f"huge.{export_format}"
        argv = [*txcript_argv(), "export", cid, "--from", "cursor_desktop"]
        argv += ["--format", export_format, "--out", str(out)]
        run(argv, env)  # warm the page cache and the bytecode
        runs = run_repeated(argv, env, repeat)
        seconds, times = median_of(runs).wall, [r.wall for r in runs]
        results[export_format] = {
            "median_s": round(seconds, 3),
            "runs_s": [round(t, 3) for t in times],
            "bytes": out.stat().st_size,
        }
        log(f"export --format {export_format}: {seconds:.3f} s")
    page = (work / "huge.html").read_text("utf-8")
    results["messages"] = page.count('<article class="message')
    bubbles = baseline_load(db_path, cid)  # warms the page cache
    floor = timed(lambda: baseline_load(db_path, cid), repeat)
    results["floor"] = {"median_s": round(floor, 3), "bubbles": bubbles}
    ratio = results["html"]["median_s"] / results["common"]["median_s"]
    results["html_to_common"] = round(ratio, 2)
    results["target_met"] = ratio <= EXPORT_RATIO_TARGET
    return results


def bench_archive(data: Path, manifest: dict[str, Any], repeat: int, work: Path) -> dict[str, Any]:
    user_dir = data / "User"
    db_path = user_dir / "globalStorage" / "state.vscdb"
    env = isolated_env(user_dir, work / "home")
    site = work / "site"
    argv = [*txcript_argv(), "archive", "--from", "cursor_desktop", "--out", str(site)]
    first, stdout = run(argv, env)
    log(f"archive, first run: {first:.1f} s: {stdout.splitlines()[0]}")
    pages = len(list((site / "sessions").rglob("*.html")))
    site_bytes = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    reruns = run_repeated(argv, env, repeat)
    rerun, times = median_of(reruns).wall, [r.wall for r in reruns]
    last = run(argv, env)[1].splitlines()[0]
    log(f"archive, unchanged re-run: {rerun:.2f} s: {last}")
    floor, (cells, size) = time_once(lambda: floor_store(db_path))
    shutil.rmtree(site)
    return {
        "sessions": manifest.get("sessions"),
        "pages": pages,
        "site_mb": round(site_bytes / 1024**2, 1),
        "first_run_s": round(first, 2),
        "first_run_summary": stdout.splitlines()[0],
        "rerun_median_s": round(rerun, 3),
        "rerun_runs_s": [round(t, 3) for t in times],
        "rerun_summary": last,
        "floor_s": round(floor, 2),
        "floor_cells": cells,
        "floor_mb": round(size / 1024**2, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    manifest_path = args.data / "manifest.json"
    if not manifest_path.exists():
        print(
            f"no store at {args.data}; generate one with:\n  .venv/bin/python "
            f"benchmarks/generate_cursor_store.py --out {args.data} --sessions 1000 "
            "--bubbles 80000 --size-gb 0.1",
            file=sys.stderr,
        )
        return 2
    manifest = json.loads(manifest_path.read_text("utf-8"))
    with tempfile.TemporaryDirectory(prefix="txcript-bench-render-") as scratch:
        work = Path(scratch)
        (work / "home").mkdir()
        report = {
            "machine": machine(),
            "store": {k: manifest.get(k) for k in ("sessions", "bubbles", "file_bytes")},
            "export": bench_export(args.data, manifest, args.repeat, work),
            "archive": bench_archive(args.data, manifest, args.repeat, work),
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    export, archive = report["export"], report["archive"]
    print(f"{'measure':<44}{'seconds':>10}  note")
    floor = export["floor"]["median_s"]
    for name in ("common", "html", "markdown"):
        seconds = export[name]["median_s"]
        print(f"{'export --format ' + name:<44}{seconds:>10.3f}  {seconds / floor:.1f}x floor")
    print(f"{'floor: sqlite3 + json.loads of the session':<44}{floor:>10.3f}")
    met = "met" if export["target_met"] else "MISSED"
    print(f"{'html / common':<44}{export['html_to_common']:>10.2f}  target <= 3 ({met})")
    print(f"{'archive, first run':<44}{archive['first_run_s']:>10.2f}  {archive['pages']} pages")
    print(f"{'archive, unchanged re-run':<44}{archive['rerun_median_s']:>10.3f}")
    print(f"{'floor: sqlite3 + json.loads of the store':<44}{archive['floor_s']:>10.2f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
