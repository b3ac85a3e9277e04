"""Issue 27: ToolCallStream, the SDK adapters and the stream helpers, on
events given as dicts. The SDKs themselves are in test_sdk_streams.py.

Every case that knows the true arguments checks the one promise a caller
relies on: a call reported ``complete`` without a doubt has exactly the true
arguments. A cut call, a stream that stopped, a stop reason that says the
model was cut off, all come back with ``complete`` false.
"""

from __future__ import annotations

import asyncio
import doctest
import json
import random
import threading
from typing import Any, List

import pytest
from recordings import STREAMS

import argmend
import argmend.anthropic
import argmend.openai
from argmend.adapters import Anthropic, CallDone, CallStarted, Field, OpenAIChat, OpenAIResponses, Skipped

# ---------------------------------------------------------------------------
# Helpers


def run(adapter: Any, events: List[Any]) -> List[Any]:
    out = []
    for event in events:
        out.extend(adapter.push(event))
    out.extend(adapter.finish())
    return out


def ends(events: List[Any]) -> List[argmend.CallEnd]:
    return [event.end for event in events if isinstance(event, CallDone)]


def skipped(events: List[Any]) -> List[str]:
    return [event.kind for event in events if isinstance(event, Skipped)]


def assert_sound(events: List[Any], truth: Any) -> None:
    """No call reported complete, without a doubt, with other arguments than the truth."""
    for end in ends(events):
        if end.complete and not end.doubts:
            assert end.args == truth, end


def chat_delta(index: int, arguments: str, id: Any = None, name: Any = None) -> dict:
    call: dict = {"index": index, "function": {"arguments": arguments}}
    if id is not None:
        call["id"] = id
        call["type"] = "function"
    if name is not None:
        call["function"]["name"] = name
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


def chat_finish(reason: str) -> dict:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


def block_start(index: int, block: dict) -> dict:
    return {"type": "content_block_start", "index": index, "content_block": block}


def tool_use(id: str, name: str, input: Any = None) -> dict:
    return {"type": "tool_use", "id": id, "name": name, "input": {} if input is None else input}


def input_delta(index: int, partial: str) -> dict:
    return {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": partial}}


def block_stop(index: int) -> dict:
    return {"type": "content_block_stop", "index": index}


def stop_reason(reason: str) -> dict:
    return {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 9}}


def fc_item(arguments: str, status: Any = None, id: str = "fc_1", name: str = "f") -> dict:
    item = {"type": "function_call", "id": id, "call_id": "call_" + id, "name": name, "arguments": arguments}
    if status is not None:
        item["status"] = status
    return item


def item_added(item: dict, index: int = 0) -> dict:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def item_done(item: dict, index: int = 0) -> dict:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def args_delta(delta: str, item_id: str = "fc_1") -> dict:
    return {"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": 0, "delta": delta}


def pieces(text: str, seed: int) -> List[str]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 7)
        out.append(text[i : i + n])
        i += n
    return out


# ---------------------------------------------------------------------------
# The docstrings' examples


def test_docstring_examples_run():
    import argmend.adapters

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    objects = [
        argmend.ToolCallStream,
        argmend.FieldEvent,
        argmend.adapters,
        OpenAIChat,
        OpenAIResponses,
        Anthropic,
        argmend.openai,
        argmend.anthropic,
    ]
    examples = 0
    for obj in objects:
        for test in finder.find(obj, obj.__name__, globs={}):
            examples += len(test.examples)
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert examples >= 30


# ---------------------------------------------------------------------------
# ToolCallStream

WRITE = '{"path": "src/a.py", "content": "def f():\\n    return \\"ok\\"  # é😀\\n", "mode": "w"}'


def test_tool_call_stream_gives_committed_text_events_value_and_end():
    call = argmend.ToolCallStream("write_file")
    assert call.name == "write_file"
    assert call.value() is None and call.snapshot() == ""
    committed = ""
    events = []
    for piece in pieces(WRITE, 1):
        update = call.feed(piece)
        assert isinstance(update, argmend.ArgsUpdate)
        committed += update.committed
        events.extend(update.events)
        snapshot = call.snapshot()
        if snapshot:
            assert call.value() == json.loads(snapshot)
            assert snapshot.startswith(committed)
    assert call.bytes_fed == len(WRITE.encode())
    end = call.finish()
    assert isinstance(end, argmend.CallEnd)
    truth = json.loads(WRITE)
    assert end.args == truth and list(end.args) == ["path", "content", "mode"]  # the text's order
    assert (end.name, end.verdict, end.strategy, end.strategy_name, end.complete, end.cut, end.reason) == (
        "write_file",
        "valid",
        1,
        "strict_parse",
        True,
        None,
        None,
    )
    assert end.fixes == [] and end.doubts == []
    assert json.loads(end.text) == truth
    assert end.text.startswith(committed)
    events.extend(end.events)
    # The deltas of a string add up to its value; every value has a field_done.
    content = "".join(e.text for e in events if e.kind == "delta" and e.path == "/content")
    assert content == truth["content"]
    done = {e.path: e.value for e in events if e.kind == "field_done"}
    assert done == {"/path": "src/a.py", "/content": truth["content"], "/mode": "w", "": truth}
    started = [(e.path, e.value_kind) for e in events if e.kind == "started"]
    assert started == [("", "object"), ("/path", "string"), ("/content", "string"), ("/mode", "string")]
    for event in events:
        assert event.to_dict()["event"] == event.kind
        assert event.to_dict()["path"] == event.path
    assert end.to_dict()["args"] == truth
    with pytest.raises(RuntimeError, match="finished"):
        call.feed("x")
    with pytest.raises(RuntimeError, match="finished"):
        call.finish()
    assert "finished" in repr(call)


def test_tool_call_stream_bytes_split_inside_characters_give_the_same_end():
    data = WRITE.encode()
    whole = argmend.ToolCallStream("write_file")
    whole.feed(data)
    expected = whole.finish()
    call = argmend.ToolCallStream("write_file")
    for i in range(len(data)):
        call.feed(data[i : i + 1])
    end = call.finish()
    assert (end.args, end.text, end.verdict) == (expected.args, expected.text, expected.verdict)


def test_tool_call_stream_cut_mid_arguments_is_not_complete():
    call = argmend.ToolCallStream("write_file")
    call.feed('{"path": "a.py", "content": "print(1')
    assert call.value() == {"path": "a.py", "content": "print(1"}
    end = call.finish()
    assert end.args == {"path": "a.py", "content": "print(1"}
    assert (end.verdict, end.complete, end.cut) == ("completed", False, None)
    assert [fix.kind for fix in end.fixes] == ["closed_string", "closed_container"]
    assert all(fix.truncation for fix in end.fixes)
    # The field events the end closed come with the end.
    assert [(e.kind, e.path) for e in end.events if e.kind == "field_done"] == [("field_done", "/content"), ("field_done", "")]


def test_tool_call_stream_plain_value_is_held_for_the_end():
    call = argmend.ToolCallStream("read_file")
    update = call.feed("main.go")
    assert (update.committed, update.events, call.value(), call.snapshot()) == ("", [], None, "")
    end = call.finish()
    assert end.args == {"file": "main.go"}
    assert (end.strategy, end.strategy_name) == (6, "plain_value")
    assert (end.to_dict()["strategy"], end.to_dict()["strategy_name"]) == (6, "plain_value")
    assert [(e.kind, e.path) for e in end.events][-1] == ("field_done", "")


def test_tool_call_stream_not_json_and_limits():
    call = argmend.ToolCallStream("f")
    call.feed("hello")
    end = call.finish()
    assert (end.args, end.verdict, end.complete, end.text) == (None, "not_json", False, "hello")
    assert "no primary field" in end.reason
    # No text at all is `{}` here; the adapters say `no_arguments` (below).
    assert argmend.ToolCallStream("f").finish().args == {}
    call = argmend.ToolCallStream("f", max_input_bytes=10)
    call.feed('{"a": "0123456789"}')
    end = call.finish()
    assert (end.verdict, end.complete, end.args) == ("not_json", False, None)
    assert "larger than 10 bytes" in end.reason
    assert end.text == '{"a": "0123456789"}'  # the raw arguments
    call = argmend.ToolCallStream("f", max_depth=2)
    call.feed("[[[[1]]]]")
    assert "deeper than 2" in call.finish().reason
    with pytest.raises(TypeError, match="must be str or bytes"):
        argmend.ToolCallStream("f").feed(5)


RAW_QUOTES = '{"path": "a.py", "content": "d = {"a": 1, "path": 2}", "mode": "w"}'
TRUTH_QUOTES = {"path": "a.py", "content": 'd = {"a": 1, "path": 2}', "mode": "w"}
PARAMETERS = {
    "type": "object",
    "additionalProperties": False,
    "required": ["path", "content"],
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "string"}},
}
OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
    },
    {"type": "function", "function": {"name": "write_file", "parameters": PARAMETERS}},
]
RESPONSES_TOOLS = [{"type": "function", "name": "write_file", "parameters": PARAMETERS}]
ANTHROPIC_TOOLS = [{"name": "write_file", "description": "Write a file", "input_schema": PARAMETERS}]


@pytest.mark.parametrize(
    "options",
    [
        {"tools": OPENAI_TOOLS},
        {"tools": RESPONSES_TOOLS},
        {"tools": ANTHROPIC_TOOLS},
        {"tools": {"tools": ANTHROPIC_TOOLS}},
        {"schema": PARAMETERS},
    ],
    ids=["openai", "responses", "anthropic", "request", "schema"],
)
def test_tool_call_stream_unescaped_quotes_need_the_tools_keys(options):
    for seed in range(5):
        call = argmend.ToolCallStream("write_file", **options)
        for piece in pieces(RAW_QUOTES, seed):
            call.feed(piece)
        end = call.finish()
        assert end.args == TRUTH_QUOTES
        assert end.complete and not end.doubts


def test_tool_call_stream_unescaped_quotes_without_tools_are_a_doubt():
    # Without the keys, `", "mode": "w` could be text of the content: the
    # engine reads it so, and says it had to choose.
    call = argmend.ToolCallStream("write_file")
    call.feed(RAW_QUOTES)
    end = call.finish()
    assert end.args != TRUTH_QUOTES
    assert [doubt.kind for doubt in end.doubts] == ["quote_as_text"]


def test_tool_call_stream_used_from_two_threads_refuses_rather_than_interleaves():
    call = argmend.ToolCallStream("write_file")
    big = '{"content": "' + "x" * 2_000_000
    errors: list[BaseException] = []

    def feed():
        try:
            for _ in range(3):
                call.feed(big)
                call.value()
        except RuntimeError as error:
            errors.append(error)

    threads = [threading.Thread(target=feed) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all("one thread at a time" in str(error) for error in errors)


# ---------------------------------------------------------------------------
# The adapters on the recorded `.jsonl` streams: the same events as argmend's
# Rust adapters (`<name>.events`), as dicts, as JSON text, and split into
# single characters.

ADAPTERS = {"openai_chat": OpenAIChat, "openai_responses": OpenAIResponses, "anthropic": Anthropic}


def jsonl(name: str) -> List[dict]:
    return [json.loads(line) for line in (STREAMS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def expected_events(name: str) -> List[dict]:
    return [json.loads(line) for line in (STREAMS / f"{name}.events").read_text(encoding="utf-8").splitlines()]


FRAGMENT = {
    "openai_chat": ("choices", 0, "delta", "tool_calls", 0, "function", "arguments"),
    "openai_responses": ("delta",),
    "anthropic": ("delta", "partial_json"),
}


def one_char_at_a_time(name: str, events: List[dict]) -> List[dict]:
    out = []
    for event in events:
        holder: Any = event
        path = FRAGMENT[name]
        try:
            for key in path[:-1]:
                holder = holder[key]
            fragment = holder[path[-1]]
        except (KeyError, IndexError, TypeError):
            fragment = None
        if not isinstance(fragment, str) or len(fragment) < 2:
            out.append(event)
            continue
        for c in fragment:
            piece = json.loads(json.dumps(event))
            holder = piece
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = c
            out.append(piece)
    return out


@pytest.mark.parametrize("name", list(ADAPTERS))
def test_adapters_report_what_the_rust_adapters_report(name):
    events = jsonl(name)
    expected = expected_events(name)
    assert [event.to_dict() for event in run(ADAPTERS[name](), events)] == expected
    # The events as JSON text (a server-sent event's data) and as bytes.
    as_text = [json.dumps(event) if i % 2 else json.dumps(event).encode() for i, event in enumerate(events)]
    assert [event.to_dict() for event in run(ADAPTERS[name](), as_text)] == expected
    # Split into characters, the ends are the same.
    split = run(ADAPTERS[name](), one_char_at_a_time(name, events))
    assert [end.to_dict() for end in ends(split)] == [end.to_dict() for end in ends(run(ADAPTERS[name](), events))]


@pytest.mark.parametrize("name", list(ADAPTERS))
def test_every_event_of_a_call_has_its_live_value(name):
    adapter = ADAPTERS[name]()
    seen = 0
    for event in jsonl(name):
        for out in adapter.push(event):
            if isinstance(out, Skipped):
                continue
            snapshot = adapter.snapshot(out.call)
            if isinstance(out, CallDone):
                assert out.value is out.end.args
                assert adapter.value(out.call) == out.end.args
                assert snapshot is None
            elif snapshot:
                assert out.value == json.loads(snapshot) == adapter.value(out.call)
                seen += 1
            if isinstance(out, Field) and out.event.kind == "field_done" and out.event.path:
                # A final field is in the call's value at its place.
                value = out.value
                for key in out.event.path.split("/")[1:]:
                    value = value[int(key) if isinstance(value, list) else key.replace("~1", "/").replace("~0", "~")]
                assert value == out.event.value
    assert seen > 20
    calls = adapter.calls()
    finished = adapter.finish()
    # After the end, every call's value is its final arguments, and the
    # events handed out still answer.
    done = {event.call: event.end.args for event in ends_events(finished)}
    for call in range(calls):
        assert adapter.value(call) is not None
        if call in done:
            assert adapter.value(call) == done[call]
        assert adapter.id(call) and adapter.name(call)
    with pytest.raises(IndexError):
        adapter.value(calls)
    assert adapter.id(calls) is None and adapter.name(calls) is None
    with pytest.raises(RuntimeError, match="finished"):
        adapter.push(jsonl(name)[0])
    with pytest.raises(RuntimeError, match="finished"):
        adapter.finish()
    assert "finished" in repr(adapter)


def ends_events(events: List[Any]) -> List[CallDone]:
    return [event for event in events if isinstance(event, CallDone)]


def test_event_objects_show_their_fields():
    out = run(
        Anthropic(),
        [
            block_start(0, tool_use("toolu_1", "read_file")),
            input_delta(0, '{"path": "a.py"}'),
            block_stop(0),
            stop_reason("tool_use"),
        ],
    )
    started, *fields, done = out
    assert isinstance(started, CallStarted)
    assert (started.call, started.id, started.name) == (0, "toolu_1", "read_file")
    assert started.to_dict() == {"event": "call_started", "call": 0, "id": "toolu_1", "name": "read_file"}
    assert CallStarted.__match_args__ == ("call", "id", "name")
    assert Field.__match_args__ == ("call", "id", "name", "event")
    assert CallDone.__match_args__ == ("call", "id", "name", "end")
    assert Skipped.__match_args__ == ("kind", "id", "name")
    assert all(isinstance(field, Field) and (field.call, field.id, field.name) == (0, "toolu_1", "read_file") for field in fields)
    assert fields[0].to_dict() == {"event": "started", "path": "", "kind": "object", "call": 0}
    assert isinstance(fields[0].event, argmend.FieldEvent)
    assert (done.call, done.id, done.name, done.value) == (0, "toolu_1", "read_file", {"path": "a.py"})
    assert done.to_dict() == {
        "event": "call_done",
        "call": 0,
        "id": "toolu_1",
        "name": "read_file",
        "args": {"path": "a.py"},
        "verdict": "valid",
        "complete": True,
        "fixes": [],
    }
    assert "CallDone(call=0" in repr(done) and "toolu_1" in repr(done)
    assert repr(started) == 'CallStarted(call=0, id="toolu_1", name="read_file")'
    assert "Field(call=0, event=FieldEvent(kind='started'" in repr(fields[0])


# ---------------------------------------------------------------------------
# OpenAI Chat Completions


def test_chat_cut_mid_arguments_by_the_end_of_the_stream():
    out = run(OpenAIChat(), [chat_delta(0, '{"path": "a.py", "content": "pri', "c0", "write_file")])
    (end,) = ends(out)
    assert (end.complete, end.cut) == (False, "stream_ended")
    assert end.args == {"path": "a.py", "content": "pri"}


@pytest.mark.parametrize("reason", ["length", "content_filter"])
def test_chat_length_with_whole_json_is_not_complete(reason):
    truth = {"a": 1}
    out = run(OpenAIChat(), [chat_delta(0, '{"a": 1}', "c0", "f"), chat_finish(reason)])
    (end,) = ends(out)
    assert (end.args, end.verdict, end.complete, end.cut) == (truth, "valid", False, reason)
    assert_sound(out, truth)


def test_chat_whole_call_and_no_arguments():
    out = run(OpenAIChat(), [chat_delta(0, '{"a": 1}', "c0", "f"), chat_finish("tool_calls")])
    assert [(end.args, end.complete, end.cut) for end in ends(out)] == [({"a": 1}, True, None)]
    out = run(OpenAIChat(), [chat_delta(0, "", "c0", "f"), chat_finish("tool_calls")])
    assert [(end.args, end.complete, end.cut) for end in ends(out)] == [({}, False, "no_arguments")]


def test_chat_a_call_ends_when_the_next_starts_and_late_text_is_reported():
    chat = OpenAIChat()
    assert ends(chat.push(chat_delta(0, '{"x": 1}', "c0", "a"))) == []
    out = chat.push(chat_delta(1, '{"y"', "c1", "b"))
    assert [(event.call, event.end.args, event.end.complete) for event in ends_events(out)] == [(0, {"x": 1}, True)]
    # The whole value's field_done comes with the end of its arguments.
    assert [type(event).__name__ for event in out][:3] == ["Field", "CallDone", "CallStarted"]
    assert skipped(chat.push(chat_delta(0, ', "z": 2}'))) == ["arguments_after_end"]
    out = chat.push(chat_finish("tool_calls"))
    assert ends(out)[0].complete is False  # cut inside a key


def test_chat_legacy_function_call_and_custom_tools():
    out = run(
        OpenAIChat(),
        [
            {"choices": [{"index": 0, "delta": {"function_call": {"name": "f", "arguments": '{"a"'}}}]},
            {"choices": [{"index": 0, "delta": {"function_call": {"arguments": ": 1}"}}}]},
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [{"index": 0, "id": "c", "type": "custom", "custom": {"name": "grammar", "input": "x"}}]
                        },
                    }
                ]
            },
            chat_finish("function_call"),
        ],
    )
    assert [end.args for end in ends(out)] == [{"a": 1}]
    (skip,) = [event for event in out if isinstance(event, Skipped)]
    assert (skip.kind, skip.id, skip.name) == ("custom", "c", "grammar")
    assert skip.to_dict() == {"event": "skipped", "kind": "custom", "id": "c", "name": "grammar"}


@pytest.mark.parametrize("tools", [OPENAI_TOOLS, {"model": "gpt-4.1", "tools": OPENAI_TOOLS}])
def test_chat_unescaped_quotes_with_and_without_the_tools(tools):
    for seed in range(4):
        events = [
            chat_delta(0, piece, "c", "write_file") if i == 0 else chat_delta(0, piece)
            for i, piece in enumerate(pieces(RAW_QUOTES, seed))
        ]
        events.append(chat_finish("tool_calls"))
        with_tools = run(OpenAIChat(tools), events)
        (end,) = ends(with_tools)
        assert (end.args, end.complete, end.doubts) == (TRUTH_QUOTES, True, [])
        assert_sound(with_tools, TRUTH_QUOTES)
        without = run(OpenAIChat(), events)
        assert ends(without)[0].args != TRUTH_QUOTES
        assert_sound(without, TRUTH_QUOTES)  # not complete without a doubt


# ---------------------------------------------------------------------------
# OpenAI Responses


def test_responses_only_the_done_text_no_deltas():
    truth = {"city": "Paris"}
    text = json.dumps(truth)
    cases = [
        # Only the arguments' `.done`, then the end of the response.
        [
            item_added(fc_item("", "in_progress")),
            {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": text},
            {"type": "response.completed", "response": {"status": "completed"}},
        ],
        # Only the item's `.done`, without even its `added`.
        [item_done(fc_item(text, "completed"))],
        # Only the final response object.
        [{"type": "response.completed", "response": {"status": "completed", "output": [fc_item(text, "completed")]}}],
    ]
    for events in cases:
        out = run(OpenAIResponses(), events)
        (end,) = ends(out)
        assert (end.args, end.complete, end.cut, end.name) == (truth, True, None, "f")
        assert_sound(out, truth)


def test_responses_final_text_that_differs_from_the_deltas_wins():
    out = run(
        OpenAIResponses(),
        [
            item_added(fc_item("")),
            args_delta('{"n": 1'),
            args_delta("2}"),
            {"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": '{"n": 13}'},
            item_done(fc_item('{"n": 13}', "completed")),
        ],
    )
    (end,) = ends(out)
    assert end.args == {"n": 13}
    assert (end.fixes[0].kind, end.fixes[0].offset) == ("final_text", 7)
    assert_sound(out, {"n": 13})


@pytest.mark.parametrize(
    "last, cut",
    [
        ({"type": "response.incomplete", "response": {"status": "incomplete"}}, "incomplete"),
        ({"type": "response.failed", "response": {"status": "failed"}}, "failed"),
        ({"type": "error", "code": "server_error", "message": "boom"}, "error"),
        (item_done(fc_item('{"a": 1}', "incomplete")), "incomplete"),
        (None, "stream_ended"),
    ],
)
def test_responses_stops_cut_calls_whose_json_is_whole(last, cut):
    events = [item_added(fc_item("")), args_delta('{"a": 1}')] + ([last] if last else [])
    out = run(OpenAIResponses(), events)
    (end,) = ends(out)
    assert (end.args, end.complete, end.cut) == ({"a": 1}, False, cut)


def test_responses_cut_mid_arguments():
    out = run(
        OpenAIResponses(),
        [
            item_added(fc_item("")),
            args_delta('{"path": "a.py", "content": "x = ['),
            {"type": "response.incomplete", "response": {}},
        ],
    )
    (end,) = ends(out)
    assert (end.complete, end.cut, end.verdict) == (False, "incomplete", "completed")
    assert end.args == {"path": "a.py", "content": "x = ["}


def test_responses_incomplete_cuts_the_items_of_its_output():
    out = run(
        OpenAIResponses(),
        [
            item_added(fc_item("")),
            args_delta('{"a": 1}'),
            {"type": "response.incomplete", "response": {"status": "incomplete", "output": [fc_item('{"a": 1}', "in_progress")]}},
        ],
    )
    (end,) = ends(out)
    assert (end.complete, end.cut) == (False, "incomplete")


def test_responses_other_call_items_are_skipped():
    out = run(
        OpenAIResponses(),
        [
            item_added({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "apply_patch", "input": ""}),
            {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "output_index": 0, "delta": "*** Begin Patch"},
            item_added({"type": "web_search_call", "id": "ws_1", "status": "in_progress"}, 1),
            item_added({"type": "reasoning", "id": "rs_1"}, 2),
            {"type": "response.completed", "response": {}},
        ],
    )
    assert ends(out) == []
    assert skipped(out) == ["custom_tool_call", "web_search_call"]


def test_responses_unescaped_quotes_with_and_without_the_tools():
    events = [item_added(fc_item("", name="write_file"))]
    events += [args_delta(piece) for piece in pieces(RAW_QUOTES, 3)]
    events += [item_done(fc_item(RAW_QUOTES, "completed", name="write_file"))]
    with_tools = run(OpenAIResponses(RESPONSES_TOOLS), events)
    assert [(end.args, end.complete) for end in ends(with_tools)] == [(TRUTH_QUOTES, True)]
    without = run(OpenAIResponses(), events)
    assert ends(without)[0].args != TRUTH_QUOTES
    for out in (with_tools, without):
        assert_sound(out, TRUTH_QUOTES)


# ---------------------------------------------------------------------------
# Anthropic


@pytest.mark.parametrize("reason, complete", [("max_tokens", False), ("refusal", False), ("tool_use", True), ("end_turn", True)])
def test_anthropic_max_tokens_with_whole_json_is_not_complete(reason, complete):
    truth = {"path": "a.txt", "content": "first line"}
    out = run(
        Anthropic(),
        [
            block_start(0, tool_use("toolu_1", "write_file")),
            input_delta(0, json.dumps(truth)),
            block_stop(0),
            stop_reason(reason),
            {"type": "message_stop"},
        ],
    )
    (end,) = ends(out)
    assert (end.args, end.complete, end.cut) == (truth, complete, None if complete else reason)
    assert_sound(out, truth)


def test_anthropic_cut_mid_arguments_and_stream_stops():
    out = run(
        Anthropic(),
        [
            block_start(0, tool_use("t", "write_file")),
            input_delta(0, '{"path": "a.txt", "content": "li'),
            stop_reason("max_tokens"),
        ],
    )
    (end,) = ends(out)
    assert (end.args, end.complete, end.cut) == ({"path": "a.txt", "content": "li"}, False, "max_tokens")
    out = run(Anthropic(), [block_start(0, tool_use("t", "f")), input_delta(0, '{"a": 1}'), block_stop(0)])
    assert [(end.complete, end.cut) for end in ends(out)] == [(False, "stream_ended")]
    out = run(
        Anthropic(),
        [
            block_start(0, tool_use("t", "f")),
            input_delta(0, '{"a": 1}'),
            {"type": "error", "error": {"type": "overloaded_error"}},
        ],
    )
    assert [(end.complete, end.cut) for end in ends(out)] == [(False, "error")]


def test_anthropic_whole_inputs_at_the_start_and_in_message_start():
    whole = {"code": 'print("hi")', "timeout": 5}
    out = run(Anthropic(), [block_start(0, tool_use("toolu_1", "run", whole)), block_stop(0), stop_reason("tool_use")])
    assert [(end.args, end.complete) for end in ends(out)] == [(whole, True)]
    out = run(
        Anthropic(),
        [
            {
                "type": "message_start",
                "message": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Replaying."}, tool_use("toolu_a", "read_file", {"path": "a.txt"})],
                },
            },
            block_start(2, tool_use("toolu_b", "read_file")),
            input_delta(2, '{"path": "b.txt"}'),
            block_stop(2),
            stop_reason("tool_use"),
        ],
    )
    assert [(end.args, end.complete) for end in ends(out)] == [({"path": "a.txt"}, True), ({"path": "b.txt"}, True)]


def test_anthropic_server_tools_are_skipped():
    out = run(
        Anthropic(),
        [
            block_start(0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
            input_delta(0, '{"query": "rust"}'),
            block_stop(0),
            block_start(1, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}),
            block_stop(1),
            stop_reason("end_turn"),
        ],
    )
    assert ends(out) == []
    (skip,) = [event for event in out if isinstance(event, Skipped)]
    assert (skip.kind, skip.id, skip.name) == ("server_tool_use", "srvtoolu_1", "web_search")


@pytest.mark.parametrize("tools", [ANTHROPIC_TOOLS, {"model": "claude", "tools": ANTHROPIC_TOOLS}])
def test_anthropic_unescaped_quotes_with_and_without_the_tools(tools):
    events = [block_start(0, tool_use("t", "write_file"))] + [input_delta(0, piece) for piece in pieces(RAW_QUOTES, 5)]
    events += [block_stop(0), stop_reason("tool_use")]
    with_tools = run(Anthropic(tools), events)
    assert [(end.args, end.complete, end.doubts) for end in ends(with_tools)] == [(TRUTH_QUOTES, True, [])]
    without = run(Anthropic(), events)
    assert ends(without)[0].args != TRUTH_QUOTES
    for out in (with_tools, without):
        assert_sound(out, TRUTH_QUOTES)
    # One schema for every call does the same.
    assert ends(run(Anthropic(schema=PARAMETERS), events))[0].args == TRUTH_QUOTES


def test_anthropic_helper_events_are_passed_over():
    # client.messages.stream() adds `text` and `input_json` events with the
    # whole text so far; the raw events beside them carry the call.
    events = [
        block_start(0, tool_use("t", "f")),
        input_delta(0, '{"a": '),
        {"type": "input_json", "partial_json": '{"a": ', "snapshot": {}},
        input_delta(0, "1}"),
        {"type": "input_json", "partial_json": "1}", "snapshot": {"a": 1}},
        {"type": "text", "text": "x", "snapshot": "x" * 1000},
        block_stop(0),
        stop_reason("tool_use"),
    ]
    assert [end.args for end in ends(run(Anthropic(), events))] == [{"a": 1}]


# ---------------------------------------------------------------------------
# What push takes


def test_push_takes_models_dicts_and_json_text():
    import pydantic

    class Event(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="allow")
        type: str

    class WithToDict:
        def __init__(self, data: dict) -> None:
            self.data = data

        def to_dict(self, **options: Any) -> dict:
            assert options == {"mode": "json", "warnings": False}
            return self.data

    events = [
        Event(type="content_block_start", index=0, content_block=tool_use("t", "f")),
        WithToDict(input_delta(0, '{"a": 1}')),
        json.dumps(block_stop(0)),
        json.dumps(stop_reason("tool_use")).encode(),
    ]
    assert [end.args for end in ends(run(Anthropic(), events))] == [{"a": 1}]
    for bad in [5, None, [1], object()]:
        with pytest.raises(TypeError, match="event must be a dict"):
            Anthropic().push(bad)
    with pytest.raises(ValueError, match="event is not JSON"):
        Anthropic().push("{not json")
    with pytest.raises(ValueError, match="event is not JSON"):
        Anthropic().push({"type": float("nan")})
    with pytest.raises(TypeError, match="event keys must be"):
        Anthropic().push({("a",): 1})
    with pytest.raises(argmend.Error, match="the event nests deeper than 512"):
        deep: Any = 1
        for _ in range(600):
            deep = [deep]
        Anthropic().push({"type": "message_start", "message": {"content": deep}})
    with pytest.raises(ValueError, match="tools is not JSON"):
        Anthropic([{"name": "f", "input_schema": {"x": float("inf")}}])


def test_chat_helper_chunk_events_are_unwrapped():
    # client.chat.completions.stream() yields `chunk` events around each
    # chunk, and its own derived events, which are passed over.
    events = [
        {"type": "chunk", "chunk": chat_delta(0, '{"a": ', "c", "f"), "snapshot": {}},
        {
            "type": "tool_calls.function.arguments.delta",
            "name": "f",
            "index": 0,
            "arguments": '{"a": ',
            "arguments_delta": '{"a": ',
        },
        {"type": "chunk", "chunk": chat_delta(0, "1}"), "snapshot": {}},
        {"type": "content.delta", "delta": "x", "snapshot": "x" * 1000},
        {"type": "chunk", "chunk": chat_finish("tool_calls"), "snapshot": {}},
    ]
    assert [(end.args, end.complete) for end in ends(run(OpenAIChat(), events))] == [({"a": 1}, True)]


def test_one_adapter_used_from_two_threads_refuses_rather_than_interleaves():
    adapter = OpenAIChat()
    adapter.push(chat_delta(0, '{"content": "', "c", "f"))
    big = chat_delta(0, "x" * 500_000)
    errors: list[BaseException] = []

    def push():
        try:
            for _ in range(5):
                adapter.push(big)
                adapter.value(0)
        except RuntimeError as error:
            errors.append(error)

    threads = [threading.Thread(target=push) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all("one thread at a time" in str(error) for error in errors)


# ---------------------------------------------------------------------------
# argmend.openai and argmend.anthropic over iterables of dicts


def test_openai_tool_calls_tells_chat_from_responses():
    chat = jsonl("openai_chat")
    responses = jsonl("openai_responses")
    assert [e.to_dict() for e in argmend.openai.tool_calls(chat)] == expected_events("openai_chat")
    assert [e.to_dict() for e in argmend.openai.tool_calls(responses)] == expected_events("openai_responses")
    # Events that show neither format wait for one that does.
    first = [{"id": "x"}] + chat
    assert [e.to_dict() for e in argmend.openai.tool_calls(first)] == expected_events("openai_chat")
    assert list(argmend.openai.tool_calls([])) == []
    assert list(argmend.openai.tool_calls([{"id": "x"}])) == []
    # The request's tools reach the adapter, either form.
    events = [chat_delta(0, RAW_QUOTES, "c", "write_file"), chat_finish("tool_calls")]
    assert ends(list(argmend.openai.tool_calls(events, OPENAI_TOOLS)))[0].args == TRUTH_QUOTES
    events = [item_done(fc_item(RAW_QUOTES, "completed", name="write_file"))]
    assert ends(list(argmend.openai.tool_calls(events, RESPONSES_TOOLS)))[0].args == TRUTH_QUOTES
    assert ends(list(argmend.openai.tool_calls(events, schema=PARAMETERS)))[0].args == TRUTH_QUOTES


def test_anthropic_tool_calls_and_the_async_twins():
    events = jsonl("anthropic")
    assert [e.to_dict() for e in argmend.anthropic.tool_calls(events)] == expected_events("anthropic")

    async def aiter(items: List[dict]) -> Any:
        for item in items:
            await asyncio.sleep(0)
            yield item

    async def collect(generator: Any) -> List[dict]:
        return [e.to_dict() async for e in generator]

    assert asyncio.run(collect(argmend.anthropic.atool_calls(aiter(events)))) == expected_events("anthropic")
    for name in ("openai_chat", "openai_responses"):
        assert asyncio.run(collect(argmend.openai.atool_calls(aiter(jsonl(name))))) == expected_events(name)
    quotes = [block_start(0, tool_use("t", "write_file")), input_delta(0, RAW_QUOTES), block_stop(0), stop_reason("tool_use")]
    got = asyncio.run(collect(argmend.anthropic.atool_calls(aiter(quotes), ANTHROPIC_TOOLS)))
    assert got[-1]["args"] == TRUTH_QUOTES


def test_the_sdk_modules_do_not_import_the_sdks():
    import subprocess
    import sys

    code = (
        "import sys, argmend, argmend.openai, argmend.anthropic, argmend.adapters; "
        "print('openai' in sys.modules, 'anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
