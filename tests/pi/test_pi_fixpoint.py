"""The pi-format codec is a fixpoint on every Common transcript it can hold (the conformance suite
runs the same property for pi, Campfire and OpenClaw; this copy runs without it)."""

from __future__ import annotations

import pi_strategies
from hypothesis import given, settings

from txcript import harnesses
from txcript import model as m


@settings(max_examples=200, deadline=None)
@given(pi_strategies.transcripts())
def test_common_to_pi_to_common_is_the_identity(transcript: m.Transcript) -> None:
    pi = harnesses.get("pi")
    native = pi.from_common(transcript)
    assert pi.to_common(native) == transcript
    assert pi.from_text(pi.to_text(native)) == native
    assert pi.meta_of(native) == transcript.meta
