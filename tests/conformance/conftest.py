"""The conformance suite's table: one row per harness and contract, after the run.

Each contract test carries ``@pytest.mark.contract(name)`` and a ``case`` parameter naming the
harness; the outcome of every test is folded into its (harness, contract) row: ``fail`` when any
case failed, ``pass`` when every case that ran passed, ``skip`` with the declared reason when all
were skipped. It works the same in one process and under pytest-xdist (``.ci/run``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Generator
from typing import Any

import pytest

_ROWS: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
#: The user property that names a report's row.
_ROW = "conformance-row"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "contract(name): the conformance contract a test checks")


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return ""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Mark the report of a contract test with its (harness, contract) row: reports carry their
    user properties to the pytest-xdist controller, which prints the table."""
    report = yield
    marker = item.get_closest_marker("contract")
    callspec: Any = getattr(item, "callspec", None)
    case = callspec.params.get("case") if callspec is not None else None
    if marker is not None and case is not None:
        report.user_properties = [*report.user_properties, (_ROW, (case.harness, marker.args[0]))]
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    row = next((value for name, value in report.user_properties if name == _ROW), None)
    if row is None:
        return
    if report.when == "call" or report.skipped or report.failed:
        outcome = "fail" if report.failed else "skip" if report.skipped else "pass"
        _ROWS[tuple(row)].append((outcome, _reason(report)))


def _row(outcomes: list[tuple[str, str]]) -> str:
    kinds = [o for o, _ in outcomes]
    reasons = "; ".join(sorted({r for o, r in outcomes if o == "skip"}))
    if "fail" in kinds:
        return f"FAIL  {kinds.count('fail')} of {len(kinds)} failed"
    if "pass" in kinds:
        skipped = kinds.count("skip")
        return f"pass  {kinds.count('pass')}" + (
            f" ({skipped} skipped: {reasons})" if skipped else ""
        )
    return f"skip  {reasons}"


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not _ROWS or hasattr(
        config, "workerinput"
    ):  # (a pytest-xdist worker: the controller prints)
        return
    from declare import CONTRACTS

    order = {name: i for i, name in enumerate(["declared", *CONTRACTS])}
    from txcript.harnesses import REGISTRY

    registry = {info.id: index for index, info in enumerate(REGISTRY)}
    harnesses = sorted({h for h, _ in _ROWS}, key=lambda h: (registry.get(h, len(registry)), h))
    width = max(len(h) for h in harnesses)
    terminalreporter.section("conformance: one row per harness and contract")
    for harness in harnesses:
        contracts = sorted((c for h, c in _ROWS if h == harness), key=lambda c: order.get(c, 99))
        for contract in contracts:
            terminalreporter.write_line(
                f"{harness:<{width}}  {contract:<28} {_row(_ROWS[(harness, contract)])}"
            )
