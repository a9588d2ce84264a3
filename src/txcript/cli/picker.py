"""The interactive picker of ``txcript query``: search as you type, Enter continues the pick.

Built on prompt_toolkit, which owns the terminal modes, the alternate screen, key decoding (a lone
Esc told apart from an escape sequence) and restores the terminal on every exit path; a SIGTERM
is turned into a normal exit so it restores the terminal too.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings
from collections.abc import Callable
from datetime import datetime
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Dimension, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth

from txcript.cli.output import cut, pad
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


#: Matching sessions fetched at first; scrolling near the end fetches as many again.
PAGE = 100
#: Lines of context the preview shows around the hit, at most (it fits the pane).
_CONTEXT_LINES = 40


class _Picker:
    """What the picker shows: one row per session (its best line for the pattern), scrolled
    to keep the cursor in view, and the cursor's hit in context in the preview pane."""

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
        #: The first row shown (the list scrolls to keep :attr:`selected` in view).
        self.top = 0
        self.rows: list[tuple[Discovered, Any]] = []
        self.summary = ""
        self.text = ""
        #: How many matching sessions to fetch; :meth:`more` raises it while scrolling.
        self.limit = PAGE
        #: Whether the last search may have left matching sessions out (it filled the limit).
        self.partial = False
        self._previews: dict[tuple[str, str, str], list[Any]] = {}
        #: The user left with Esc or ctrl-c (the picker then exits 130, as fzf does).
        self.cancelled = False

    def refresh(self, text: str, height: int | None = None) -> None:
        """Show the sessions matching ``text`` (every session when it is blank). A new pattern
        puts the cursor back on the best match; ``height`` is the list's rows, when known."""
        if text != self.text:
            self.selected = self.top = 0
            self.limit = PAGE
        self.text = text
        if not text.strip():
            self.rows = [(s, None) for s in self.sessions]
            self.partial = False
            self.summary = f"{len(self.rows)}/{len(self.sessions)}"
        else:
            matches = self._search(text, self.limit)
            self.rows = [(m.session, _best(m.hits)) for m in matches]
            self.partial = len(matches) >= self.limit
            count = f"{len(self.rows)}{'+' if self.partial else ''}"
            self.summary = f"{count} {'match' if count == '1' else 'matches'}"
        self.selected = min(self.selected, max(0, len(self.rows) - 1))
        if height is not None:
            self.scroll(height)

    def move(self, step: int, height: int) -> None:
        """Move the cursor ``step`` rows (negative: up), fetching more matches when it nears
        the end of those found so far."""
        self.selected = max(0, min(len(self.rows) - 1, self.selected + step))
        if self.partial and self.selected >= len(self.rows) - max(1, height):
            self.limit = max(self.limit * 2, self.selected + 2 * height)
            self.refresh(self.text)
            self.selected = max(0, min(len(self.rows) - 1, self.selected))
        self.scroll(height)

    def scroll(self, height: int) -> None:
        height = max(1, height)
        if self.selected < self.top:
            self.top = self.selected
        elif self.selected >= self.top + height:
            self.top = self.selected - height + 1
        self.top = max(0, min(self.top, max(0, len(self.rows) - height)))

    def _search(self, text: str, limit: int) -> list[Any]:
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
                limit=limit,
                hits_per_session=1,
                scan_limit=SCAN_LIMIT,
            )

        with warnings.catch_warnings(record=True) as caught:  # (stderr is the picker's screen)
            warnings.simplefilter("always")
            matches, self.index = with_fallback(self.index, run)
        self.warnings += caught
        return matches

    def render(self, width: int, height: int | None = None) -> StyleAndTextTuples:
        """The summary line and the rows in view (every row when ``height`` is None)."""
        out: StyleAndTextTuples = [("class:dim", self.summary + "\n")]
        shown = self.rows if height is None else self.rows[self.top : self.top + max(1, height)]
        for position, (session, hit) in enumerate(shown, start=0 if height is None else self.top):
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
                used = 1 + 12 + 12 + 9 + 24 + 7
                out.append(("class:dim " + style, f" {_number(hit):>5} "))
                for text, matched in _fitted(hit.line, hit.highlights, width - used):
                    out.append(("class:match " + style if matched else style, text))
            out.append(("", "\n"))
        return out

    # -- the preview pane --------------------------------------------------------------------
    def preview(self, width: int, height: int) -> StyleAndTextTuples:
        """The cursor's session around its hit (its start without a pattern), as ``view`` would
        show it, under a title naming the ``view ID#N`` that shows it whole."""
        if not self.rows or height < 2:
            return []
        session, hit = self.rows[self.selected]
        number = None if hit is None or hit.message is None else hit.message + 1
        where = f"{scrub(session.meta_id)}#{number}" if number else scrub(session.meta_id)
        out: StyleAndTextTuples = [("class:dim", cut(f"── txcript view {where} ", width) + "\n")]
        lines = self._lines(session)
        if hit is None or hit.message is not None:  # (the title and cwd lines: not said)
            lines = [line for line in lines if line.message is not None]
        at = next((i for i, line in enumerate(lines) if hit is not None and _is_hit(line, hit)), 0)
        room = height - 1
        first = max(0, min(at - room // 3, len(lines) - room))
        for line in lines[first : first + room]:
            label = f"#{line.message + 1}" if line.message is not None else "meta"
            head = f"{label:>5} {line.origin[:11]:<11} "
            style = "class:selected" if hit is not None and _is_hit(line, hit) else ""
            out.append(("class:dim " + style, head))
            text = " ".join(scrub(line.text).split())
            spans = hit.highlights if hit is not None and _is_hit(line, hit) else ()
            for part, matched in _fitted(line.text if spans else text, spans, width - len(head)):
                out.append(("class:match " + style if matched else style, part))
            out.append(("", "\n"))
        return out

    def _lines(self, session: Discovered) -> list[Any]:
        key = (session.harness, session.meta_id, session.reference)
        held = self._previews.get(key)
        if held is None:
            held = []
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    doc = self.index.doc_of(session)
                    if doc is not None:
                        held = self.index.lines_of(doc, self.origins)[: 20 * _CONTEXT_LINES]
                except Exception:  # a preview is a courtesy: an unreadable part shows nothing
                    held = []
            self.warnings += caught
            self._previews[key] = held
        return held


def _best(hits: Any) -> Any:
    """A session's best hit (the first of the best-scoring ones), or None."""
    return max(hits, key=lambda hit: hit.score) if hits else None


def _number(hit: Any) -> str:
    """The hit's message number as ``view`` numbers messages (``#N``), or ``meta``."""
    return "meta" if hit.message is None else f"#{hit.message + 1}"


def _is_hit(line: Any, hit: Any) -> bool:
    return (line.message, line.block, line.origin, line.text) == (
        hit.message,
        hit.block,
        hit.origin,
        hit.line,
    )


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

    def size() -> tuple[int, int]:
        app = get_app_or_none()
        if app is None:
            return 24, 80
        shape = app.output.get_size()
        return shape.rows, shape.columns

    def preview_rows() -> int:
        """The preview pane's rows: a third of the screen, none on a short terminal."""
        rows = size()[0]
        return 0 if rows < 12 else max(3, (rows - 2) // 3)

    def rows_visible() -> int:
        return max(1, size()[0] - 2 - preview_rows())

    def changed(_: Buffer) -> None:
        state.refresh(query.text, rows_visible())

    query.on_text_changed += changed

    def step(count: int) -> Callable[[KeyPressEvent], None]:
        def move(event: KeyPressEvent) -> None:
            page = rows_visible()
            state.move(count if abs(count) == 1 else (page if count > 0 else -page), page)

        return move

    keys.add("up")(step(-1))
    keys.add("c-p")(step(-1))
    keys.add("down")(step(1))
    keys.add("c-n")(step(1))
    keys.add("pageup")(step(-2))
    keys.add("pagedown")(step(2))

    @keys.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if state.rows:
            event.app.exit(result=state.rows[state.selected][0])

    @keys.add("escape", eager=True)
    @keys.add("c-c")
    def _cancel(event: KeyPressEvent) -> None:
        state.cancelled = True
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
                Window(FormattedTextControl(lambda: state.render(size()[1], rows_visible()))),
                Window(
                    FormattedTextControl(lambda: state.preview(size()[1], preview_rows())),
                    height=lambda: Dimension.exact(preview_rows()),
                ),
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
        if state.cancelled:
            sys.exit(130)  # Esc or ctrl-c, as fzf exits
        return
    continue_and_resume(
        picked.meta_id, with_harness=with_harness, from_harness=picked.harness, documents=False
    )
