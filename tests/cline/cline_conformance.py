"""What the Cline, Roo and Kilo conformance declarations share: their fixture families and the
Common transcripts the task codec holds exactly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import cline_fixtures as f
from hypothesis import strategies as st

from txcript import model as m

_START = datetime(2026, 1, 1, tzinfo=UTC)

#: Text the task codec keeps exactly: no ``<`` or ``[`` (an XML-era call and its result header
#: start with them, and a task without native calls is read for them), no ``#`` or ``(`` (the
#: first prompt's "Current Working Directory (…)" is a fallback for the cwd).
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,!?-_/'\n"
texts = st.text(alphabet=_ALPHABET, max_size=30)
words = st.text(alphabet=_ALPHABET.replace(" ", "").replace("\n", ""), min_size=1, max_size=12)
#: Tool names Cline's vocabulary does not claim and no Common schema types.
raw_names = words.filter(
    lambda n: (
        n not in ("execute_command", "read_file", "write_to_file", "replace_in_file")
        and n not in ("Read", "Write", "Edit", "MultiEdit", "Bash")
    )
)
json_inputs = st.dictionaries(words, texts | st.integers(0, 99) | st.booleans(), max_size=3)


def _ms(offset: int) -> datetime:
    return _START + timedelta(milliseconds=offset)


tools: st.SearchStrategy[m.Tool] = st.one_of(
    st.builds(m.Bash, command=texts),
    st.builds(m.Bash, command=texts, workdir=words, timeout_ms=st.none() | st.integers(1, 9999)),
    st.builds(m.Read, file_path=words, offset=st.none() | st.integers(0, 99)),
    st.builds(m.Write, file_path=words, content=texts),
    st.builds(
        m.Edit, file_path=words, old_string=texts, new_string=texts, replace_all=st.booleans()
    ),
    st.builds(
        m.MultiEdit,
        file_path=words,
        edits=st.lists(st.builds(m.EditSpec, old_string=texts, new_string=texts), max_size=3).map(
            tuple
        ),
    ),
    st.builds(m.Raw, tool_name=raw_names, input=json_inputs),
)

thinking = st.one_of(
    st.builds(m.Thinking, text=texts, signature=st.none() | words),
    st.builds(m.Thinking, text=st.just(""), encrypted=words),
)
user_blocks = st.one_of(
    st.builds(m.Text, text=texts),
    st.builds(m.ToolResult, tool_use_id=words, content=texts, is_error=st.booleans()),
    st.builds(
        m.Image,
        source=st.builds(
            m.ImageSource, type=st.just("base64"), media_type=st.just("image/png"), data=words
        ),
    ),
)
assistant_blocks = st.one_of(
    st.builds(m.Text, text=texts), thinking, st.builds(m.ToolUse, id=words, tool=tools)
)


@st.composite
def transcripts(draw: st.DrawFn, harness: str = "cline") -> m.Transcript:
    """Alternating user and assistant messages (ms times, models only on replies), a one-line
    title and a model in Meta (the reader falls back to the first prompt and reply for those)."""
    del harness  # the same domain for the three: Roo writes edits under Common's names
    count = draw(st.integers(0, 5))
    messages = []
    for index in range(count):
        role = "user" if index % 2 == 0 else "assistant"
        pool = user_blocks if role == "user" else assistant_blocks
        messages.append(
            m.Message(
                role=role,
                content=tuple(draw(st.lists(pool, max_size=3))),
                timestamp=_ms(1000 * (index + 1)),
                model=draw(st.none() | words) if role == "assistant" else None,
            )
        )
    meta = m.Meta(
        id=draw(words),
        timestamp=_ms(draw(st.integers(0, 999))),
        cwd=draw(st.none() | words),
        title=draw(words),
        model=draw(words),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


def cline_xml(root: Path) -> None:
    f.cline_xml_task(root)


def cline_native(root: Path) -> None:
    f.cline_native_task(root)


def cline_cli(root: Path) -> None:
    f.cline_sdk_session(root)


def roo_state(root: Path) -> None:
    f.roo_state_task(root)


def roo_item(root: Path) -> None:
    f.roo_item_task(root)


def kilo_database(root: Path) -> None:
    f.kilo_db(root)


def kilo_legacy(root: Path) -> None:
    """A task of the older extension, on a machine where the Kilo CLI has run once (a new copy
    goes into its kilo.db)."""
    f.kilo_legacy_task(root)
    f.empty_kilo_db(root)


_KILO_TOOLS = st.one_of(
    st.builds(m.Bash, command=texts, description=st.none() | texts),
    st.builds(m.Read, file_path=words, offset=st.none() | st.integers(0, 99)),
    st.builds(m.Write, file_path=words, content=texts),
    st.builds(m.Edit, file_path=words, old_string=texts, new_string=texts),
    st.builds(
        m.Raw,
        tool_name=words.filter(lambda n: n not in ("bash", "read", "edit", "write")),
        input=json_inputs,
    ),
)


@st.composite
def kilo_transcripts(draw: st.DrawFn) -> m.Transcript:
    """What a ``kilo.db`` session holds exactly (OpenCode's grouping): a user turn, assistant
    turns each followed by the results of its calls, stamped later."""
    clock, calls = 0, 0
    messages: list[m.Message] = []
    for _ in range(draw(st.integers(1, 2))):
        clock += draw(st.integers(1, 5000))
        user = draw(st.lists(st.builds(m.Text, text=texts), min_size=1, max_size=2))
        messages.append(m.Message(role="user", content=tuple(user), timestamp=_ms(clock)))
        for _ in range(draw(st.integers(1, 2))):
            clock += draw(st.integers(1, 5000))
            blocks: list[m.Block] = [m.Text(text=draw(texts))]
            results: list[m.Block] = []
            for _ in range(draw(st.integers(0, 2))):
                calls += 1
                blocks.append(m.ToolUse(id=f"call_{calls}", tool=draw(_KILO_TOOLS)))
                results.append(
                    m.ToolResult(
                        tool_use_id=f"call_{calls}",
                        content=draw(texts),
                        is_error=draw(st.booleans()),
                    )
                )
            messages.append(
                m.Message(
                    role="assistant",
                    content=tuple(blocks),
                    timestamp=_ms(clock),
                    model="claude-sonnet-4-5",
                )
            )
            if results:
                clock += draw(st.integers(1, 5000))
                messages.append(
                    m.Message(role="user", content=tuple(results), timestamp=_ms(clock))
                )
    meta = m.Meta(
        id=f.KILO_SESSION,
        timestamp=_START,
        cwd=draw(st.none() | st.just("/work/kilo")),
        title=draw(st.none() | words),
        model=draw(st.none() | st.just("claude-sonnet-4-5")),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))
