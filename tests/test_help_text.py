"""Help that says what a user can type: examples for every command that writes or builds
something, the harness ids where an option takes one, and no document format offered as a
harness."""

from __future__ import annotations

import pytest

from conftest import RunCli
from txcript import harnesses

STORES = harnesses.ids(store=True)


@pytest.mark.parametrize("command", ["archive", "backup", "demo"])
def test_every_command_shows_examples(run_cli: RunCli, command: str) -> None:
    shown = run_cli(command, "--help").stdout
    assert "Examples:" in shown
    assert f"txcript {command}" in shown.split("Examples:")[1]


@pytest.mark.parametrize("command", ["query", "archive", "completion"])
def test_the_harness_ids_are_in_the_help(run_cli: RunCli, command: str) -> None:
    shown = " ".join(run_cli(command, "--help").stdout.split())
    assert all(harness in shown for harness in STORES), shown


def test_the_top_level_list_of_harnesses_offers_no_document_format(run_cli: RunCli) -> None:
    shown = run_cli("--help").stdout
    listed = " ".join(shown.split("harnesses:")[1].split())
    assert listed == ", ".join(STORES)
    assert "common" not in listed
