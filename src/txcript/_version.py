"""The package's version: the one fact every layer may import from the top."""

__version__ = "0.1.0"
