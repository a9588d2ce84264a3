"""The interactive picker of ``txcript query``: search as you type, Enter continues the pick.

Built on prompt_toolkit, which owns the terminal modes, the alternate screen, key decoding (a lone
Esc told apart from an escape sequence) and restores the terminal on every exit path; a SIGTERM
is turned into a normal exit so it restores the terminal too.
"""

from __future__ import annotations

import os
import signal
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
    def __init__(self, sessions: list[Discovered], index: Any, origins: frozenset[str]) -> None:
        self.sessions = sessions
        self.index = index
        self.origins = origins
        self.selected = 0
        self.rows: list[tuple[Discovered, Any]] = []
        self.summary = ""

    def refresh(self, text: str, height: int) -> None:
        from txcript.search import search

        visible = max(1, height)
        if not text.strip():
            self.rows = [(s, None) for s in self.sessions[:visible]]
            self.summary = f"{len(self.rows)}/{len(self.sessions)}"
        else:
            matches = search(
                self.index,
                self.sessions,
                text,
                origins=self.origins,
                limit=visible,
                hits_per_session=visible,
                scan_limit=SCAN_LIMIT,
            )
            hits = [(m.session, h, m.score, rank) for rank, m in enumerate(matches) for h in m.hits]
            hits.sort(key=lambda item: (-item[1].score, item[3]))
            self.rows = [(session, hit) for session, hit, _, _ in hits[:visible]]
            full = "+" if len(self.rows) >= visible else ""
            self.summary = f"{len(self.rows)}{full} matches"
        self.selected = min(self.selected, max(0, len(self.rows) - 1))

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
    if marks and get_cwidth(shown[: marks[0][1]]) > width:
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


def pick(sessions: list[Discovered], index: Any, origins: frozenset[str]) -> Discovered | None:
    """Run the picker; the chosen session, or None when cancelled (Esc, ctrl-c, SIGTERM)."""
    state = _Picker(sessions, index, origins)
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

    index = open_index()
    try:
        chosen, index = with_fallback(
            index,
            lambda held: indexed_sessions(held, harness_names, cwd=cwd, since=since, until=until),
        )
        picked = pick(chosen, index, origins)
    finally:
        index.close()
    if picked is None:
        return
    continue_and_resume(
        picked.meta_id, with_harness=with_harness, from_harness=picked.harness, documents=False
    )
