"""A model-API stand-in on 127.0.0.1: answers every request with one short text reply and keeps
each request body, so a test can see exactly what a real harness client rebuilt from a session.

It speaks just enough of two APIs for a client to finish one turn:

* Anthropic Messages (``POST /v1/messages``), streamed as server-sent events or as one JSON body;
* OpenAI Responses (``POST /v1/responses``), streamed; a WebSocket upgrade is answered 404 so the
  client falls back to HTTP; ``GET /v1/models`` lists one model;
* Gemini (``POST /v1beta/models/<model>:streamGenerateContent`` as server-sent events, and
  ``:generateContent`` / ``:countTokens`` as JSON);
* OpenAI Chat Completions (``POST /v1/chat/completions``), streamed as server-sent events or as
  one JSON body.

Anything else is answered 404 and recorded too.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "stub reply"


@dataclass
class Recorded:
    method: str
    path: str
    body: Any


@dataclass
class ModelStub:
    server: ThreadingHTTPServer
    requests: list[Recorded] = field(default_factory=list)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def bodies(self, path: str) -> list[Any]:
        return [r.body for r in self.requests if r.path.split("?")[0] == path]

    def bodies_like(self, suffix: str) -> list[Any]:
        return [r.body for r in self.requests if r.path.split("?")[0].endswith(suffix)]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
    )


def _anthropic(body: Any, calls: list[dict[str, Any]] | None = None) -> tuple[str, bytes]:
    """One reply: :data:`REPLY`, or — for a streamed request offering tools while ``calls`` is
    not empty — the next scripted batch of ``tool_use`` blocks (``{id, name, input}``)."""
    model = body.get("model", "stub") if isinstance(body, dict) else "stub"
    if calls and isinstance(body, dict) and body.get("stream") and body.get("tools"):
        return "text/event-stream", _anthropic_calls(model, calls.pop(0)["batch"])
    message = {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    if not (isinstance(body, dict) and body.get("stream")):
        done = {**message, "content": [{"type": "text", "text": REPLY}], "stop_reason": "end_turn"}
        return "application/json", json.dumps(done).encode()
    return "text/event-stream", _sse(
        [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": REPLY},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 2},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _anthropic_calls(model: str, batch: list[dict[str, Any]]) -> bytes:
    message = {
        "id": "msg_stub_calls",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message})
    ]
    for index, call in enumerate(batch):
        block = {"type": "tool_use", "id": call["id"], "name": call["name"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 2},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


def _responses(body: Any) -> tuple[str, bytes]:
    model = body.get("model", "stub") if isinstance(body, dict) else "stub"
    item = {
        "type": "message",
        "id": "msg_stub",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
    }
    response = {
        "id": "resp_stub",
        "object": "response",
        "created_at": 0,
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    completed = {
        **response,
        "status": "completed",
        "output": [item],
        "usage": {
            "input_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 2,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 3,
        },
    }
    events = [
        ("response.created", {"type": "response.created", "response": response}),
        (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": [], "status": "in_progress"},
            },
        ),
        (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "item_id": "msg_stub",
                "output_index": 0,
                "content_index": 0,
                "delta": REPLY,
            },
        ),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        ("response.completed", {"type": "response.completed", "response": completed}),
    ]
    return "text/event-stream", _sse(events)


def _gemini(path: str) -> tuple[str, bytes]:
    chunk = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": REPLY}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 2, "totalTokenCount": 3},
        "modelVersion": "stub",
    }
    if path.endswith(":countTokens"):
        return "application/json", b'{"totalTokens": 1}'
    if path.endswith(":streamGenerateContent"):
        return "text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode()
    return "application/json", json.dumps(chunk).encode()


def _chat(body: Any) -> tuple[str, bytes]:
    model = body.get("model", "stub") if isinstance(body, dict) else "stub"
    usage = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    if not (isinstance(body, dict) and body.get("stream")):
        done = {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": REPLY},
                    "finish_reason": "stop",
                }
            ],
            "usage": usage,
        }
        return "application/json", json.dumps(done).encode()

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events = [
        chunk({"role": "assistant", "content": ""}, None),
        chunk({"content": REPLY}, None),
        {**chunk({}, "stop"), "usage": usage},
    ]
    body_bytes = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)
    return "text/event-stream", body_bytes + b"data: [DONE]\n\n"


def start(calls: list[list[dict[str, Any]]] | None = None) -> ModelStub:
    """A stub on an ephemeral loopback port. ``calls`` scripts tool-call batches: each streamed
    Anthropic request that offers tools gets the next batch instead of the text reply, until
    they run out (a client then runs the tools itself and the session records real results)."""
    stub: ModelStub
    script = [{"batch": batch} for batch in calls or []]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr
            pass

        def _answer(self, status: int, kind: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            stub.requests.append(Recorded("GET", self.path, None))
            if self.headers.get("Upgrade", "").lower() == "websocket":
                self._answer(404, "text/plain", b"no websockets here")
            elif self.path.split("?")[0].endswith("/models"):
                data = {
                    "object": "list",
                    "data": [{"id": "stub-model", "object": "model"}],
                    "models": [],
                }
                self._answer(200, "application/json", json.dumps(data).encode())
            else:
                self._answer(404, "text/plain", b"not found")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            path = self.path.split("?")[0]
            stub.requests.append(Recorded("POST", path, body))
            if path.endswith("/chat/completions"):
                self._answer(200, *_chat(body))
            elif path.endswith("/messages") and "count_tokens" not in path:
                with lock:
                    answer = _anthropic(body, script)
                self._answer(200, *answer)
            elif path.endswith("/count_tokens"):
                self._answer(200, "application/json", b'{"input_tokens": 1}')
            elif path.endswith("/responses"):
                self._answer(200, *_responses(body))
            elif ":" in path.rsplit("/", 1)[-1] and "/models/" in path:
                self._answer(200, *_gemini(path))
            else:
                self._answer(404, "text/plain", b"not found")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    stub = ModelStub(server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return stub
