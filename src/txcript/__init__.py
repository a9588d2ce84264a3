"""txcript: move AI coding-agent sessions between harnesses through one typed Common model.

The public surface is small on purpose:

* :mod:`txcript.model` holds the Common types (``Transcript``, ``Meta``, ``Message``, blocks,
  tools).
* :func:`txcript.harnesses.get` returns a harness by id or alias; each harness has a codec
  (``to_common``/``from_common``), a text form (``from_text``/``to_text``) and, where the harness
  keeps sessions on disk, a store (``discover``/``load``/``save``/``delete``/``fingerprints``).
* :mod:`txcript.sessions` finds and reads sessions across every local store.
"""

__version__ = "0.1.0"
