"""Issue 27: the adapters fed the official SDKs' own stream objects.

Each recorded stream (``recordings.py``: the ``.jsonl`` streams and the SDKs'
own fixtures under ``../shared/model_streams/sdk``, skipped with the reason
when that folder is missing) is served through
``httpx2.MockTransport`` to a real ``openai.OpenAI`` / ``anthropic.Anthropic``
client (and to ``AsyncOpenAI`` / ``AsyncAnthropic``). The stream objects the
SDK yields go to ``argmend.openai.tool_calls`` / ``argmend.anthropic.tool_calls``
(``atool_calls`` for the async clients), and every call is checked against
what the SDK itself makes of the same stream:

- Chat Completions: openai's ``ChatCompletionStreamState`` (the accumulator
  behind ``client.chat.completions.stream()``) fed the same chunks; a call's
  arguments are its ``function.arguments``, parsed.
- Responses: the ``function_call`` item of ``response.output_item.done``, else
  the ``response.function_call_arguments.done`` text, else the deltas.
- Anthropic: ``client.messages.stream()``'s ``get_final_message()``: the
  ``input`` of each ``tool_use`` block (for the ``.jsonl`` stream, whose
  arguments are malformed on purpose and which that helper cannot parse, the
  ``partial_json`` fragments concatenated, as it would).

A call the stream cut (the Chat choice's last call under ``length``; an
unfinished or ``incomplete`` Responses item; the Anthropic block being
written at ``max_tokens``) must come back with ``complete`` false and
arguments that keep all the SDK's partial value (jiter's partial mode drops
a cut string, argmend keeps it). Every other call must be ``complete`` with
exactly the SDK's arguments, where those are JSON; where they are not (the
``.jsonl`` streams' malformed calls), the events must be the Rust adapter's,
``<name>.events``. The events of each call come in order (started, fields,
done), and each ``value`` read as it arrives is the call's value then.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, List, Optional

import pytest
import shared_data as shared
from recordings import SDK, SDK_WHAT, Recording, anthropic_client, openai_client, recordings, sdk_missing

import argmend.anthropic
import argmend.openai
from argmend.adapters import CallDone, CallStarted, Field, Skipped

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
jiter = pytest.importorskip("jiter")

RECORDINGS = recordings()
# The parameters of the tests run once per recording: without the SDKs'
# recordings, one more, None, which skips and says why.
PER_RECORDING = RECORDINGS + ([None] if sdk_missing() else [])


def recording_id(recording: Recording | None) -> str:
    return "sdk" if recording is None else str(recording)


def need_sdk(recording: Recording | None) -> None:
    """Skips the run for the missing SDK recordings (``recording`` is None)."""
    if recording is None:
        shared.need(SDK, SDK_WHAT)
MESSAGES = [{"role": "user", "content": "What's the weather?"}]


@dataclass
class Expected:
    id: Optional[str]
    name: str
    raw: Optional[str]  # the argument text, when the SDK keeps one
    args: Any  # the SDK's value, or None when it is not JSON
    cut: bool


@dataclass
class Run:
    """What one replay gave: the SDK's objects and argmend's events, with
    each event's `value` as read when it came."""

    sdk_events: List[Any] = field(default_factory=list)
    events: List[Any] = field(default_factory=list)
    values: List[Any] = field(default_factory=list)


def create(recording: Recording, asynchronous: bool) -> Any:
    """The SDK's stream of the recording (a coroutine for the async clients)."""
    if recording.format == "anthropic":
        client = anthropic_client(recording.body, asynchronous=asynchronous)
        return client.messages.create(model="claude-opus-4-6", max_tokens=1024, messages=MESSAGES, stream=True)
    client = openai_client(recording.body, asynchronous=asynchronous)
    if recording.format == "openai_chat":
        return client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    return client.responses.create(model="gpt-5", input="What's the weather?", stream=True)


def tool_calls(recording: Recording) -> Any:
    return argmend.anthropic.tool_calls if recording.format == "anthropic" else argmend.openai.tool_calls


def atool_calls(recording: Recording) -> Any:
    return argmend.anthropic.atool_calls if recording.format == "anthropic" else argmend.openai.atool_calls


def replay_sync(recording: Recording) -> Run:
    run = Run()

    def recorded(stream: Any) -> Any:
        for event in stream:
            run.sdk_events.append(event)
            yield event

    with create(recording, False) as stream:
        assert type(stream).__name__ == "Stream"
        for event in tool_calls(recording)(recorded(stream)):
            run.events.append(event)
            run.values.append(getattr(event, "value", None))
    return run


async def replay_async(recording: Recording) -> Run:
    run = Run()

    async def recorded(stream: Any) -> Any:
        async for event in stream:
            run.sdk_events.append(event)
            yield event

    stream = await create(recording, True)
    assert type(stream).__name__ == "AsyncStream"
    async with stream:
        async for event in atool_calls(recording)(recorded(stream)):
            run.events.append(event)
            run.values.append(getattr(event, "value", None))
    return run


# ---------------------------------------------------------------------------
# What the SDK makes of the stream


def loads(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def partial(raw: str) -> Any:
    """The SDKs' reading of a cut argument text: jiter's partial mode."""
    try:
        return jiter.from_json(raw.encode(), partial_mode=True)
    except ValueError:
        return None


def expected_chat(sdk_events: List[Any]) -> List[Expected]:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state = ChatCompletionStreamState()
    for chunk in sdk_events:
        state.handle_chunk(chunk)
    out = []
    for choice in state.current_completion_snapshot.choices:
        calls = choice.message.tool_calls or []
        for n, call in enumerate(calls):
            reason = choice.finish_reason
            cut = reason is None or (reason in ("length", "content_filter") and n == len(calls) - 1)
            raw = call.function.arguments
            out.append(Expected(call.id or None, call.function.name, raw, partial(raw) if cut else loads(raw), cut))
    return out


def expected_responses(sdk_events: List[Any]) -> List[Expected]:
    calls: dict[str, dict] = {}
    for event in sdk_events:
        if event.type in ("response.output_item.added", "response.output_item.done") and event.item.type == "function_call":
            call = calls.setdefault(event.item.id, {"deltas": "", "done": None, "item": None})
            call.setdefault("id", event.item.call_id)
            call["name"] = event.item.name
            if event.type == "response.output_item.done":
                call["item"] = event.item
        elif event.type == "response.function_call_arguments.delta" and event.item_id in calls:
            calls[event.item_id]["deltas"] += event.delta
        elif event.type == "response.function_call_arguments.done" and event.item_id in calls:
            calls[event.item_id]["done"] = event.arguments
    out = []
    for call in calls.values():
        item = call["item"]
        finished = item is not None or call["done"] is not None
        cut = not finished or (item is not None and item.status == "incomplete")
        raw = item.arguments if item is not None else call["done"] if call["done"] is not None else call["deltas"]
        out.append(Expected(call["id"], call["name"], raw, partial(raw) if cut else loads(raw), cut))
    return out


def anthropic_cut_blocks(sdk_events: List[Any]) -> set:
    """The indexes of the blocks the stream cut: in a message stopped by its
    output limit (or never stopped), the last block."""
    reason, stopped, last = None, False, None
    for event in sdk_events:
        if event.type == "message_start":
            if event.message.content:
                last = len(event.message.content) - 1
        elif event.type == "content_block_start":
            last = event.index
        elif event.type == "message_delta" and event.delta.stop_reason:
            reason, stopped = event.delta.stop_reason, True
        elif event.type == "message_stop":
            stopped = True
    cut = not stopped or reason in ("max_tokens", "model_context_window_exceeded", "refusal")
    return {last} if cut else set()


def expected_anthropic(recording: Recording, sdk_events: List[Any]) -> List[Expected]:
    cut_blocks = anthropic_cut_blocks(sdk_events)
    if recording.expected is None:
        # The SDK's own accumulation, through its stream helper.
        client = anthropic_client(recording.body)
        with client.messages.stream(model="claude-opus-4-6", max_tokens=1024, messages=MESSAGES) as stream:
            helper_events = list(stream)
            message = stream.get_final_message()
        # The helper's events (raw ones and its own) give the adapter the same calls.
        raw_ends = [e.to_dict() for e in argmend.anthropic.tool_calls(sdk_events) if isinstance(e, CallDone)]
        helper_ends = [e.to_dict() for e in argmend.anthropic.tool_calls(helper_events) if isinstance(e, CallDone)]
        assert helper_ends == raw_ends
        return [
            Expected(block.id, block.name, None, block.input, n in cut_blocks)
            for n, block in enumerate(message.content)
            if block.type == "tool_use"
        ]
    # Malformed on purpose: the helper cannot parse it; the fragments, as it
    # would concatenate them.
    blocks: dict[int, Expected] = {}
    for event in sdk_events:
        if event.type == "content_block_start" and event.content_block.type == "tool_use":
            block = event.content_block
            blocks[event.index] = Expected(block.id, block.name, "", None, event.index in cut_blocks)
        elif event.type == "content_block_delta" and event.delta.type == "input_json_delta" and event.index in blocks:
            blocks[event.index].raw += event.delta.partial_json
    for block in blocks.values():
        raw = block.raw or ""
        block.args = partial(raw) if block.cut else loads(raw)
    return list(blocks.values())


def expected(recording: Recording, sdk_events: List[Any]) -> List[Expected]:
    if recording.format == "openai_chat":
        return expected_chat(sdk_events)
    if recording.format == "openai_responses":
        return expected_responses(sdk_events)
    return expected_anthropic(recording, sdk_events)


def extends(got: Any, want: Any) -> bool:
    """`got` keeps all that `want` (a partial value) has."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(key in got and extends(got[key], value) for key, value in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) >= len(want) and all(extends(g, w) for g, w in zip(got, want))
    return got == want


# ---------------------------------------------------------------------------
# The checks


def check(recording: Recording, run: Run) -> None:
    assert run.sdk_events, "the SDK yielded nothing"
    # The SDK objects are its own models, not dicts.
    assert all(hasattr(event, "to_dict") for event in run.sdk_events)
    events = run.events
    if recording.expected is not None:
        assert [event.to_dict() for event in events] == recording.expected
    done = [event for event in events if isinstance(event, CallDone)]
    want = expected(recording, run.sdk_events)  # empty for a text answer
    assert len(done) == len(want), (done, want)
    for got, call in zip(done, want):
        assert (got.id, got.name) == (call.id, call.name)
        if call.cut:
            assert not got.end.complete, got.end
            assert got.end.cut is not None
            assert call.args is None or extends(got.end.args, call.args), (got.end.args, call.args)
        elif call.args is not None or call.raw is None:
            assert got.end.args == call.args
            assert got.end.complete, got.end
        if got.end.complete and not got.end.doubts and call.args is not None:
            # Never other arguments than the SDK's reported complete.
            assert got.end.args == call.args
    # Each call: started, its fields, done; in the order they began.
    started = [event.call for event in events if isinstance(event, CallStarted)]
    assert started == list(range(len(started)))
    assert sorted(event.call for event in done) == started
    state: dict[int, str] = {}
    for event in events:
        if isinstance(event, CallStarted):
            assert event.call not in state
            state[event.call] = "open"
        elif isinstance(event, Field):
            assert state[event.call] == "open"
            assert event.id == next(d.id for d in done if d.call == event.call) or event.id is None
        elif isinstance(event, CallDone):
            assert state[event.call] == "open"
            state[event.call] = "done"
        else:
            assert isinstance(event, Skipped)
    # Each value as read when its event came: the call's value then; the
    # last one of each call is its final arguments.
    last: dict[int, Any] = {}
    for event, value in zip(events, run.values):
        if isinstance(event, Skipped):
            continue
        assert value is None or isinstance(value, (dict, list))
        if isinstance(event, Field) and event.event.kind == "field_done" and value is not None:
            at = value
            for key in event.event.path.split("/")[1:]:
                at = at[int(key)] if isinstance(at, list) else at[key.replace("~1", "/").replace("~0", "~")]
            if not isinstance(event.event.value, (dict, list)):
                assert at == event.event.value
        last[event.call] = value
    for event in done:
        assert last[event.call] == event.end.args
        assert event.value is event.end.args


@pytest.mark.parametrize("recording", PER_RECORDING, ids=recording_id)
def test_sync_sdk_stream(recording):
    need_sdk(recording)
    check(recording, replay_sync(recording))


@pytest.mark.parametrize("recording", PER_RECORDING, ids=recording_id)
def test_async_sdk_stream(recording):
    need_sdk(recording)
    run = asyncio.run(replay_async(recording))
    check(recording, run)
    # The same events as the sync client's.
    assert [event.to_dict() for event in run.events] == [event.to_dict() for event in replay_sync(recording).events]


def test_every_format_has_recordings_with_calls_cut_and_whole():
    formats = {recording.format for recording in RECORDINGS}
    assert formats == {"openai_chat", "openai_responses", "anthropic"}
    # Every file has a client tool call in one of its responses.
    files: dict[str, int] = {}
    for recording in RECORDINGS:
        name = str(recording).split("#")[0]
        files[name] = files.get(name, 0) + len(expected(recording, replay_sync(recording).sdk_events))
    assert all(files.values()), files
    for recording in RECORDINGS:
        if recording.expected is not None:
            assert any(event.get("cut") for event in recording.expected)
            assert any(event.get("complete") for event in recording.expected)


def test_the_chat_stream_helper_gives_the_same_calls():
    """``client.chat.completions.stream()`` yields ``chunk`` events around
    the chunks, and events of its own; the adapter reads the chunks."""
    for recording in RECORDINGS:
        if recording.format != "openai_chat":
            continue
        with openai_client(recording.body).chat.completions.stream(model="gpt-4.1", messages=MESSAGES) as stream:
            helper = [event.to_dict() for event in argmend.openai.tool_calls(stream)]
        assert helper == [event.to_dict() for event in replay_sync(recording).events], recording


def test_the_responses_stream_helper_gives_the_same_calls():
    """``client.responses.stream()`` adds the text so far to its text events
    (passed over) and its own snapshot to the final response."""
    for recording in RECORDINGS:
        if recording.format != "openai_responses" or recording.expected is not None:
            continue
        with openai_client(recording.body).responses.stream(model="gpt-5", input="What's the weather?") as stream:
            helper = [event.to_dict() for event in argmend.openai.tool_calls(stream)]
        assert helper == [event.to_dict() for event in replay_sync(recording).events], recording


def test_the_requests_tools_reach_each_call():
    """A ``write_file`` call with unescaped quotes in its content, sent through
    each SDK: right with the request's tools (their keys and
    ``additionalProperties: false``), a doubt without them."""
    raw = '{"path": "a.py", "content": "d = {"a": 1, "path": 2}", "mode": "w"}'
    truth = {"path": "a.py", "content": 'd = {"a": 1, "path": 2}', "mode": "w"}
    parameters = {
        "type": "object",
        "additionalProperties": False,
        "required": ["path", "content"],
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "string"}},
    }
    half = len(raw) // 2
    chat = [
        {
            "object": "chat.completion.chunk",
            "id": "c",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "write_file", "arguments": raw[:half]},
                            }
                        ]
                    },
                }
            ],
        },
        {
            "object": "chat.completion.chunk",
            "id": "c",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": raw[half:]}}]}}],
        },
        {
            "object": "chat.completion.chunk",
            "id": "c",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        },
    ]
    chat_body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chat) + "data: [DONE]\n\n"
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "write_file", "arguments": ""}
    responses = [
        {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress")},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": raw[:half]},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": raw[half:]},
        {"type": "response.output_item.done", "output_index": 0, "item": dict(item, arguments=raw, status="completed")},
    ]
    responses_body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in responses)
    messages = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": raw[:half]}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": raw[half:]}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
    messages_body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in messages)
    openai_tools = [{"type": "function", "function": {"name": "write_file", "parameters": parameters}}]
    responses_tools = [{"type": "function", "name": "write_file", "parameters": parameters}]
    anthropic_tools = [{"name": "write_file", "input_schema": parameters}]

    def chat_stream() -> Any:
        return openai_client(chat_body.encode()).chat.completions.create(
            model="m", messages=MESSAGES, tools=openai_tools, stream=True
        )

    def responses_stream() -> Any:
        return openai_client(responses_body.encode()).responses.create(model="m", input="x", tools=responses_tools, stream=True)

    def messages_stream() -> Any:
        return anthropic_client(messages_body.encode()).messages.create(
            model="m", max_tokens=9, messages=MESSAGES, tools=anthropic_tools, stream=True
        )

    for make, calls, tools in [
        (chat_stream, argmend.openai.tool_calls, openai_tools),
        (responses_stream, argmend.openai.tool_calls, responses_tools),
        (messages_stream, argmend.anthropic.tool_calls, anthropic_tools),
    ]:
        (with_tools,) = [e.end for e in calls(make(), tools) if isinstance(e, CallDone)]
        assert (with_tools.args, with_tools.complete, with_tools.doubts) == (truth, True, [])
        (without,) = [e.end for e in calls(make()) if isinstance(e, CallDone)]
        assert without.args != truth
        assert without.doubts  # reported complete only with a doubt
