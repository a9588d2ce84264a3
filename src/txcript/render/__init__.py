"""Reading sessions like a person: every one-way rendering of a Common transcript.

* :mod:`~txcript.render.view` — the compact text ``view`` prints.
* :mod:`~txcript.render.present` — what a reader sees of each block (tool calls as a person
  reads them, long output cut), shared by the document formats below.
* :mod:`~txcript.render.markdown` — ``export --format markdown``.
* :mod:`~txcript.render.html` — ``export --format html``: one self-contained page.
* :mod:`~txcript.render.archive` — ``txcript archive``: a static site of many sessions.

Nothing here reads a store or the clock; the archive builder is the one part that writes files.
"""
