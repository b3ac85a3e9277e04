"""The recorded model streams, as the HTTP bodies an API sends, for the SDK tests (``test_sdk_streams.py``) and the README's
examples (``test_readme.py``).

Two kinds of recording:

- ``corpus/model_streams/<format>.jsonl``: one event's JSON per line, with
  ``<format>.events``, what argmend's Rust adapter reports for it (one
  ``ClientEvent.to_json()`` per line). Served as the API would: ``data:``
  lines, with an ``event: <type>`` line before each for Anthropic and the
  Responses API, and ``data: [DONE]`` at the end of a Chat stream.
- ``../shared/model_streams/sdk/<format>/*.sse``: the SDKs' own recorded
  bodies (the README there says where each comes from; other projects'
  data, so kept beside the checkout: ``shared_data.py``), served byte for byte. Two
  changes only, both what the real servers send: a file holding several
  recorded responses one after the other (a multi-step run) is served as one
  body per response, as a client would request them; and an Anthropic event
  recorded without its ``event:`` line (vercel/ai's fixtures keep the data
  only) gets it back, since the anthropic SDK reads an event by that line and
  drops one without it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional

import shared_data as shared

REPO = shared.REPO
STREAMS = REPO / "corpus" / "model_streams"
# The shared folder of the SDKs' recordings, and what the tests need of it.
SDK = "model_streams/sdk"
SDK_WHAT = "the SDKs' recorded streams"
FORMATS = ("openai_chat", "openai_responses", "anthropic")


@dataclass
class Recording:
    """One recorded response of a stream."""

    name: str
    format: str  # "openai_chat", "openai_responses" or "anthropic"
    body: bytes
    # What the Rust adapter reports for it (the `.jsonl` recordings only).
    expected: Optional[List[dict]] = None

    def __repr__(self) -> str:
        return self.name

    def events(self) -> List[dict]:
        """The body's events as dicts, as an SDK would parse them."""
        return [json.loads(data) for _, data in parse_sse(self.body.decode())]


def parse_sse(text: str) -> Iterator[tuple[str, str]]:
    """``(raw block, data)`` for each event of an SSE body with JSON data
    (not ``[DONE]``, not an empty one)."""
    for block in re.split(r"\r?\n\r?\n", text):
        data = "\n".join(
            line[6:] if line.startswith("data: ") else line[5:] for line in block.splitlines() if line.startswith("data:")
        ).strip()
        if data and data != "[DONE]":
            yield block, data


def _starts_response(format: str, event: dict) -> bool:
    kind = event.get("type")
    return (format == "openai_responses" and kind == "response.created") or (format == "anthropic" and kind == "message_start")


def _bodies(format: str, text: str) -> List[bytes]:
    """The recorded responses of one file, each as the body the API sent."""
    responses: List[List[str]] = []
    changed = False
    for block, data in parse_sse(text):
        event = json.loads(data)
        if not responses or (_starts_response(format, event) and responses[-1]):
            responses.append([])
        if format == "anthropic" and not any(line.startswith("event:") for line in block.splitlines()):
            block = f"event: {event['type']}\n{block}"
            changed = True
        responses[-1].append(block)
    if len(responses) == 1 and not changed:
        return [text.encode()]  # as recorded, byte for byte
    done = "\n\ndata: [DONE]" if "data: [DONE]" in text else ""
    return [("\n\n".join(blocks) + done + "\n\n").encode() for blocks in responses]


def _jsonl_body(format: str, text: str) -> bytes:
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        kind = json.loads(line).get("type")
        out.append(f"event: {kind}\ndata: {line}\n\n" if format != "openai_chat" else f"data: {line}\n\n")
    if format == "openai_chat":
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def recordings() -> List[Recording]:
    """Every recording: the `.jsonl` streams, then the SDKs' own, by name
    (none when ``../shared/model_streams/sdk`` is missing: ``sdk_missing()``)."""
    out = []
    for format in FORMATS:
        text = (STREAMS / f"{format}.jsonl").read_text(encoding="utf-8")
        expected = [json.loads(line) for line in (STREAMS / f"{format}.events").read_text(encoding="utf-8").splitlines()]
        out.append(Recording(f"{format}.jsonl", format, _jsonl_body(format, text), expected))
    sdk = shared.find(SDK)
    for path in sorted(sdk.glob("*/*.sse") if sdk else []):
        if path.parent.name not in FORMATS:
            continue
        bodies = _bodies(path.parent.name, path.read_text(encoding="utf-8"))
        for n, body in enumerate(bodies):
            suffix = f"#{n}" if len(bodies) > 1 else ""
            out.append(Recording(f"sdk/{path.parent.name}/{path.name}{suffix}", path.parent.name, body))
    return out


def sdk_missing() -> bool:
    """Whether the SDKs' recordings are missing (then a test parametrized
    over the recordings gets one more parameter, ``None``, whose run skips
    with the reason: ``shared_data.need(SDK, SDK_WHAT)``)."""
    return shared.find(SDK) is None


# ---------------------------------------------------------------------------
# Serving a body to the SDKs


def handler(body: bytes) -> Callable[[Any], Any]:
    """An ``httpx2.MockTransport`` handler that answers every request with
    ``body`` as a server-sent event stream, and keeps the requests."""
    import httpx2

    def handle(request: Any) -> Any:
        handle.requests.append(request)  # type: ignore[attr-defined]
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    handle.requests = []  # type: ignore[attr-defined]
    return handle


def openai_client(body: bytes, *, asynchronous: bool = False) -> Any:
    import httpx2
    import openai

    transport = httpx2.MockTransport(handler(body))
    if asynchronous:
        return openai.AsyncOpenAI(
            api_key="x", base_url="http://test", http_client=httpx2.AsyncClient(transport=transport), max_retries=0
        )
    return openai.OpenAI(api_key="x", base_url="http://test", http_client=httpx2.Client(transport=transport), max_retries=0)


def anthropic_client(body: bytes, *, asynchronous: bool = False) -> Any:
    import anthropic
    import httpx2

    transport = httpx2.MockTransport(handler(body))
    if asynchronous:
        return anthropic.AsyncAnthropic(
            api_key="x", base_url="http://test", http_client=httpx2.AsyncClient(transport=transport), max_retries=0
        )
    return anthropic.Anthropic(api_key="x", base_url="http://test", http_client=httpx2.Client(transport=transport), max_retries=0)
