"""Regression (found by the conformance suite's text round trip over OpenCode's representable
subset): the OpenCode export document left every NULL column out, so a session whose ``model``
column is NULL (the current schema, no model chosen) read back from its text as a session of an
older schema, which has no ``model`` column and takes its first reply's model. The document now
says ``"model": null``; a document without the key still reads as the older schema does."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from txcript import harnesses
from txcript import model as m

H = harnesses.get("opencode")
T0 = datetime(2026, 3, 1, tzinfo=UTC)
SESSION = m.Transcript(
    meta=m.Meta(id="ses_4a1b2c3d4e5fAbCdEfGhIjKlMn", timestamp=T0),
    messages=(
        m.Message(role="user", content=(m.Text(text="hi"),), timestamp=T0),
        m.Message(
            role="assistant",
            content=(m.Text(text="hello"),),
            timestamp=T0 + timedelta(seconds=1),
            model="gpt-5",
        ),
    ),
)


def test_a_null_model_stays_null_through_the_text_form() -> None:
    native = H.from_common(SESSION)
    assert H.to_common(native).meta.model is None
    text = H.to_text(native)
    assert json.loads(text)["info"]["model"] is None
    again = H.from_text(text)
    assert H.to_common(again) == SESSION
    assert H.to_text(again) == text


def test_a_document_without_a_model_still_takes_the_first_replys() -> None:
    document = json.loads(H.to_text(H.from_common(SESSION)))
    del document["info"]["model"]
    assert H.to_common(H.from_text(json.dumps(document))).meta.model == "gpt-5"
