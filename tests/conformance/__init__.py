"""The conformance suite (see README.md). A package, so its conftest is not the module
``conftest`` the other test directories import from; its own modules (``declare``,
``contracts``, ``faults``) and the declarations import one another by their plain names."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
