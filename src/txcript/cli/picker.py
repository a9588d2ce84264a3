"""The interactive picker of ``txcript query``: search as you type, Enter continues the pick.

Built on prompt_toolkit, which owns the terminal modes, the alternate screen, key decoding (a lone
Esc told apart from an escape sequence) and restores the terminal on every exit path; a SIGTERM
is turned into a normal exit so it restores the terminal too.
"""

from __future__ import annotations

import os
import signal
import warnings
from collections.abc import Callable
from datetime import datetime
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth

from txcript.cli.output import pad
from txcript.diagnostics import give_again
from txcript.harnesses.base import Discovered
from txcript.shared.text import scrub

#: What the trigram index cannot narrow (a pattern under three characters, the last-resort scan
#: for gapped matches) is searched in the newest this many sessions only, so every keystroke
#: stays quick; ``txcript query PATTERN`` searches them all.
SCAN_LIMIT = 300

_STYLE = Style.from_dict(
    {"dim": "#888888", "selected": "underline", "match": "bold #ff5555", "prompt": "bold"}
)


class _Picker:
    def __init__(
        self,
        sessions: list[Discovered],
        index: Any,
        origins: frozenset[str],
        reindex: Callable[[Any], list[Discovered]] | None = None,
    ) -> None:
        self.sessions = sessions
        self.index = index
        self.origins = origins
        #: Brings a fallback index up to date and lists the sessions again (see :meth:`_search`).
        self.reindex = reindex
        #: Warnings met while the picker owns the screen, shown once it is gone.
        self.warnings: list[warnings.WarningMessage] = []
        self.selected = 0
        self.rows: list[tuple[Discovered, Any]] = []
        self.summary = ""

    def refresh(self, text: str, height: int) -> None:
        visible = max(1, height)
        if not text.strip():
            self.rows = [(s, None) for s in self.sessions[:visible]]
            self.summary = f"{len(self.rows)}/{len(self.sessions)}"
        else:
            matches = self._search(text, visible)
            hits = [(m.session, h, m.score, rank) for rank, m in enumerate(matches) for h in m.hits]
            hits.sort(key=lambda item: (-item[1].score, item[3]))
            self.rows = [(session, hit) for session, hit, _, _ in hits[:visible]]
            full = "+" if len(self.rows) >= visible else ""
            self.summary = f"{len(self.rows)}{full} matches"
        self.selected = min(self.selected, max(0, len(self.rows) - 1))

    def _search(self, text: str, visible: int) -> list[Any]:
        """The matches for ``text``. The index is read as the user types, long after it was
        opened: damage met then (a part that does not decode, tables another txcript dropped)
        goes on as ``txcript query`` does, on a new or in-memory index built again, with one
        warning, instead of a traceback over the picker."""
        from txcript.search import search, with_fallback

        def run(index: Any) -> list[Any]:
            if index is not self.index and self.reindex is not None:
                self.sessions = self.reindex(index)
            return search(
                index,
                self.sessions,
                text,
                origins=self.origins,
                limit=visible,
                hits_per_session=visible,
                scan_limit=SCAN_LIMIT,
            )

        with warnings.catch_warnings(record=True) as caught:  # (stderr is the picker's screen)
            warnings.simplefilter("always")
            matches, self.index = with_fallback(self.index, run)
        self.warnings += caught
        return matches

    def render(self, width: int) -> StyleAndTextTuples:
        out: StyleAndTextTuples = [("class:dim", self.summary + "\n")]
        for position, (session, hit) in enumerate(self.rows):
            marker = "▌" if position == self.selected else " "
            when = session.timestamp.strftime("%m-%d %H:%M")
            ident = pad(scrub(session.meta_id), 8)
            label = session.title or (os.path.basename(session.cwd) if session.cwd else "")
            label = pad(scrub(label), 24)
            style = "class:selected" if position == self.selected else ""
            out.append((style, f"{marker}{session.harness[:11]:<11} "))
            out.append(("class:dim " + style, f"{when} {ident} "))
            out.append((style, label))
            if hit is not None:
                used = 1 + 12 + 12 + 9 + 24 + 13
                out.append(("class:dim " + style, f" {hit.origin:>11} "))
                for text, matched in _fitted(hit.line, hit.highlights, width - used):
                    out.append(("class:match " + style if matched else style, text))
            out.append(("", "\n"))
        return out


#: Cells shown before a match that the cut would otherwise hide (at most half the room left).
_CONTEXT = 30


def _fitted(line: str, spans: Any, width: int) -> list[tuple[str, bool]]:
    """The hit line in ``width`` terminal cells, as (text, is it a match) runs: scrubbed with
    its offsets kept (so the highlights still fall on the matched characters), shown from
    shortly before the first match when that would lie past the cut, and ``…`` where text is
    left out."""
    if width <= 0:
        return []
    shown = scrub(line, keep_offsets=True)
    marks = sorted((max(0, a), min(b, len(shown))) for a, b in spans if a < min(b, len(shown)))
    begin, lead = 0, ""
    # (Text after the match takes a cell for the "…" of the cut.)
    fits = width if marks and marks[0][1] == len(shown) else width - 1
    if marks and width >= 3 and get_cwidth(shown[: marks[0][1]]) > fits:
        # Room for the match, "…" on both sides, and up to half what is left before it.
        first = get_cwidth(shown[marks[0][0] : marks[0][1]])
        context = min(_CONTEXT, max(0, (width - 2 - first) // 2))
        begin, lead = marks[0][0], "…"
        while begin > 0 and get_cwidth(shown[begin - 1]) <= context:
            begin -= 1
            context -= get_cwidth(shown[begin])
    room = width - len(lead)
    end, used = begin, 0
    while end < len(shown) and used + get_cwidth(shown[end]) <= room:
        used += get_cwidth(shown[end])
        end += 1
    if end < len(shown):  # cut: the last cell or two make way for "…"
        while end > begin and used + 1 > room:
            end -= 1
            used -= get_cwidth(shown[end])
    runs: list[tuple[str, bool]] = [(lead, False)] if lead else []
    position = begin
    for a, b in marks:
        a, b = max(a, position), min(b, end)
        if a >= b:
            continue
        runs += [(shown[position:a], False), (shown[a:b], True)]
        position = b
    runs.append((shown[position:end], False))
    if end < len(shown):
        runs.append(("…", False))
    return [run for run in runs if run[0]]


def pick(state: _Picker) -> Discovered | None:
    """Run the picker; the chosen session, or None when cancelled (Esc, ctrl-c, SIGTERM)."""
    query = Buffer(multiline=False)
    keys = KeyBindings()

    def rows_visible() -> int:
        app = get_app_or_none()
        height = app.output.get_size().rows if app is not None else 24
        return max(1, height - 2)

    def width() -> int:
        app = get_app_or_none()
        return app.output.get_size().columns if app is not None else 80

    def changed(_: Buffer) -> None:
        state.refresh(query.text, rows_visible())

    query.on_text_changed += changed

    @keys.add("up")
    @keys.add("c-p")
    def _up(event: KeyPressEvent) -> None:
        state.selected = max(0, state.selected - 1)

    @keys.add("down")
    @keys.add("c-n")
    def _down(event: KeyPressEvent) -> None:
        state.selected = min(max(0, len(state.rows) - 1), state.selected + 1)

    @keys.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if state.rows:
            event.app.exit(result=state.rows[state.selected][0])

    @keys.add("escape", eager=True)
    @keys.add("c-c")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    @keys.add("c-u")
    def _clear(event: KeyPressEvent) -> None:
        query.text = ""

    layout = Layout(
        HSplit(
            [
                Window(
                    BufferControl(buffer=query),
                    height=1,
                    get_line_prefix=lambda *_: [("class:prompt", "> ")],
                ),
                Window(FormattedTextControl(lambda: state.render(width()))),
            ]
        ),
        focused_element=query,
    )
    app: Application[Discovered | None] = Application(
        layout=layout, key_bindings=keys, full_screen=True, style=_STYLE
    )
    state.refresh("", 22)

    def terminate(signum: int, frame: Any) -> None:
        app.exit(result=None)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        return app.run()
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_picker(
    harness_names: tuple[str, ...],
    with_harness: str | None,
    cwd: str | None,
    since: datetime | None,
    until: datetime | None,
    origins: frozenset[str],
) -> None:
    """Index, pick, then continue the pick exactly as ``txcript continue`` would."""
    from txcript.cli.writing import continue_and_resume
    from txcript.search import indexed_sessions, open_index, with_fallback

    def listed(held: Any) -> list[Discovered]:
        return indexed_sessions(held, harness_names, cwd=cwd, since=since, until=until)

    index = open_index()
    try:
        chosen, index = with_fallback(index, listed)
        state = _Picker(chosen, index, origins, listed)
        try:
            picked = pick(state)
        finally:
            index = state.index
    finally:
        index.close()
    give_again(state.warnings)
    if picked is None:
        return
    continue_and_resume(
        picked.meta_id, with_harness=with_harness, from_harness=picked.harness, documents=False
    )
