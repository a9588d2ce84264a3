"""The ``txcript`` command line (see :mod:`txcript.cli.app`)."""

from txcript.cli.app import cli, main

__all__ = ["cli", "main"]
