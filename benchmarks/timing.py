"""Run a child process and time it, or time a call in this process: shared by every benchmark.

A child's figures (:class:`Run`): wall seconds from spawn until it is reaped
(``time.perf_counter``), CPU seconds (user + system) from its ``os.wait4`` rusage, and its peak
RSS measured one of two ways:

* ``maxrss_mib``, ``ru_maxrss`` from ``wait4``: free, but Linux carries the spawning process's
  high-water mark across ``exec``, so it is never below this (the benchmark) process's peak;
* ``hwm_mib``, the kernel's ``VmHWM`` of the child's own address space, polled from
  ``/proc/<pid>/status`` every :data:`POLL_S` until it exits (``sample_rss=True``). A high-water
  mark, so only growth in the last poll interval could be missed; polling costs CPU on a small
  machine, so a run that samples RSS is not the run whose time is reported.

Children get :func:`child_env`: without ``PYTHONDONTWRITEBYTECODE``, since an installed txcript
runs from compiled bytecode and recompiling every module it imports on each run (about 0.2 s)
is a cost no user pays.

Benchmarks run as scripts (``python benchmarks/bench_x.py``), which puts this directory on
``sys.path``: they import this module as ``timing``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

T = TypeVar("T")

#: How often a child's peak RSS is sampled (only in the runs that sample it).
POLL_S = 0.001

#: What becomes of a child's stdout: thrown away (``/dev/null``), only counted (a temporary
#: file whose size is kept), or kept (read back into :attr:`Run.stdout`).
Stdout = Literal["discard", "count", "keep"]


@dataclass(frozen=True)
class Run:
    """One child process, reaped."""

    wall: float  #: seconds from spawn until reaped
    cpu: float  #: user + system seconds of the child
    maxrss_mib: float  #: ``ru_maxrss`` (see the module docstring: never below this process's)
    hwm_mib: float  #: the child's own ``VmHWM``, polled; 0.0 unless ``sample_rss``
    returncode: int
    stdout: bytes  #: empty unless ``stdout="keep"``
    stdout_bytes: int  #: 0 when ``stdout="discard"``
    stderr: bytes

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", "replace")


@dataclass(frozen=True)
class Medians:
    """The medians of several runs of one command."""

    wall: float
    cpu: float
    maxrss_mib: float
    hwm_mib: float


def child_env(base: Mapping[str, str] | None = None, **updates: str) -> dict[str, str]:
    """``base`` (default: this process's environment) without ``PYTHONDONTWRITEBYTECODE``,
    with ``updates`` applied."""
    env = dict(os.environ if base is None else base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(updates)
    return env


def run_child(
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    stdout: Stdout = "keep",
    cwd: Path | None = None,
    sample_rss: bool = False,
    check: bool = True,
    timeout: float | None = None,
) -> Run:
    """Run ``argv`` to its end and measure it.

    ``check``: a non-zero exit ends the benchmark with the command and its stderr's tail.
    ``timeout``: the child is killed after that many seconds (and so fails).
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sink = subprocess.DEVNULL if stdout == "discard" else out
        peak_kb = 0
        started = time.perf_counter()
        child = subprocess.Popen(list(argv), stdout=sink, stderr=err, env=dict(env), cwd=cwd)
        killer = None
        if timeout is not None:
            killer = threading.Timer(timeout, _kill, (child.pid,))
            killer.start()
        try:
            if sample_rss:
                status_path = f"/proc/{child.pid}/status"
                while True:
                    peak_kb = max(peak_kb, read_hwm_kb(status_path))
                    pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                    if pid:
                        break
                    time.sleep(POLL_S)
            else:
                _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - started
        finally:
            if killer is not None:
                killer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        errors = err.read()
        if check and child.returncode != 0:
            raise SystemExit(
                f"{' '.join(argv[:6])}… failed ({child.returncode}): "
                f"{errors.decode(errors='replace')[-2000:]}"
            )
        size = os.fstat(out.fileno()).st_size
        kept = b""
        if stdout == "keep":
            out.seek(0)
            kept = out.read()
    return Run(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        maxrss_mib=usage.ru_maxrss / 1024,
        hwm_mib=peak_kb / 1024,
        returncode=child.returncode,
        stdout=kept,
        stdout_bytes=size,
        stderr=errors,
    )


def _kill(pid: int) -> None:
    # Not Popen.kill: its poll() could reap the child under the wait4 above.
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def read_hwm_kb(status_path: str) -> int:
    try:
        with open(status_path, encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0  # exited (a zombie has no address space) or not readable


def run_repeated(
    argv: Sequence[str],
    env: Mapping[str, str],
    repeat: int,
    *,
    stdout: Stdout = "keep",
    cwd: Path | None = None,
) -> list[Run]:
    """``repeat`` runs of ``argv``, one after the other."""
    return [run_child(argv, env, stdout=stdout, cwd=cwd) for _ in range(repeat)]


def median_of(runs: Iterable[Run]) -> Medians:
    done = list(runs)
    return Medians(
        wall=statistics.median(r.wall for r in done),
        cpu=statistics.median(r.cpu for r in done),
        maxrss_mib=statistics.median(r.maxrss_mib for r in done),
        hwm_mib=statistics.median(r.hwm_mib for r in done),
    )


def time_once(fn: Callable[[], T]) -> tuple[float, T]:
    """Wall seconds of one call in this process, and its value. The garbage of whatever ran
    before is collected first, outside the timed span."""
    gc.collect()
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def time_samples(fn: Callable[[], object], repeat: int) -> list[float]:
    return [time_once(fn)[0] for _ in range(repeat)]


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median wall seconds of ``repeat`` calls of ``fn`` in this process."""
    return statistics.median(time_samples(fn, repeat))
