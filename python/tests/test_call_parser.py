"""Issue 44: argmend.CallParser, the tool calls a model writes in its text,
in every open-weight format, with the SDK adapters' events.

Each format's call is written here as the model writes it (our own text,
not a server's test vector), fed whole and in random chunks (cut anywhere,
inside characters too), and must give the same calls; a call the text cuts
off comes back not complete.
"""

from __future__ import annotations

import doctest
import json
import random
from typing import Any, List

import pytest

import argmend
from argmend.adapters import CallDone, CallStarted, Field, Skipped, Text

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "integer"}},
            },
        },
    }
]
TRUTH = {"path": "src/é.py", "content": 'print("hi")\nx = {"a": [1, 2]}\n', "mode": 644}
ARGS = json.dumps(TRUTH, ensure_ascii=False)

# (format, the model's text): one call to write_file with TRUTH, between prose.
CALLS = {
    "hermes": f'<tool_call>\n{{"name": "write_file", "arguments": {ARGS}}}\n</tool_call>',
    "mistral_v3": f'[TOOL_CALLS][{{"name": "write_file", "arguments": {ARGS}}}]',
    "mistral_v11": f"[TOOL_CALLS]write_file[ARGS]{ARGS}",
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0"
    f"<|tool_call_argument_begin|>{ARGS}<|tool_call_end|><|tool_calls_section_end|>",
    "gpt_oss": "<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json"
    f"<|message|>{ARGS}<|call|>",
    "deepseek_v3": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n"
    f"```json\n{ARGS}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "qwen3_coder": "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/é.py\n</parameter>\n"
    '<parameter=content>\nprint("hi")\nx = {"a": [1, 2]}\n\n</parameter>\n<parameter=mode>\n644\n</parameter>\n'
    "</function>\n</tool_call>",
    "glm45": "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>src/é.py</arg_value>\n"
    '<arg_key>content</arg_key>\n<arg_value>print("hi")\nx = {"a": [1, 2]}\n</arg_value>\n'
    "<arg_key>mode</arg_key>\n<arg_value>644</arg_value>\n</tool_call>",
    "minimax_m2": '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">src/é.py</parameter>\n'
    '<parameter name="content">print("hi")\nx = {"a": [1, 2]}\n</parameter>\n'
    '<parameter name="mode">644</parameter>\n</invoke>\n</minimax:tool_call>',
    "deepseek_v32": '<｜DSML｜function_calls>\n<｜DSML｜invoke name="write_file">\n'
    '<｜DSML｜parameter name="path" string="true">src/é.py</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="content" string="true">print("hi")\nx = {"a": [1, 2]}\n</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="mode" string="false">644</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "gemma4": '<|tool_call>call:write_file{path:<|"|>src/é.py<|"|>,content:<|"|>print("hi")\n'
    'x = {"a": [1, 2]}\n<|"|>,mode:644}<tool_call|>',
    "pythonic": "[write_file(path='src/é.py', content='print(\"hi\")\\nx = {\"a\": [1, 2]}\\n', mode=644)]",
    "lfm2": "<|tool_call_start|>[write_file(path='src/é.py', content='print(\"hi\")\\nx = {\"a\": [1, 2]}\\n', "
    "mode=0o1204)]<|tool_call_end|>",
}


def run(parser: argmend.CallParser, chunks: List[Any]) -> List[Any]:
    events = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.finish())
    return events


def pieces(text: str, rng: random.Random) -> List[bytes]:
    data = text.encode()
    out, at = [], 0
    while at < len(data):
        n = rng.randint(1, 9)
        out.append(data[at : at + n])
        at += n
    return out


def summary(events: List[Any]) -> List[Any]:
    """The calls and the text: what every chunking must agree on."""
    out: List[Any] = []
    text = "".join(e.text for e in events if isinstance(e, Text))
    for e in events:
        if isinstance(e, CallStarted):
            out.append(("started", e.call, e.name))
        elif isinstance(e, CallDone):
            out.append(("done", e.call, e.name, e.end.args, e.end.complete, e.end.cut))
    return [text, out]


@pytest.mark.parametrize("format", sorted(CALLS))
def test_every_format_gives_the_call_in_any_chunks(format: str) -> None:
    text = f"Let me write it.\n{CALLS[format]}\nDone."
    whole = run(argmend.CallParser(format=format, tools=TOOLS), [text])
    done = [e for e in whole if isinstance(e, CallDone)]
    assert [(d.name, d.end.args, d.end.complete) for d in done] == [("write_file", TRUTH, True)], whole
    # The name comes first, then the fields, then the end.
    kinds = [type(e).__name__ for e in whole if not isinstance(e, Text)]
    assert kinds[0] == "CallStarted" and kinds[-1] == "CallDone" and set(kinds[1:-1]) == {"Field"}
    assert "".join(e.text for e in whole if isinstance(e, Text)).startswith("Let me write it.\n")
    rng = random.Random(format)
    for _ in range(20):
        chunks = pieces(text, rng)
        assert summary(run(argmend.CallParser(format=format, tools=TOOLS), chunks)) == summary(whole)


@pytest.mark.parametrize("format", sorted(CALLS))
def test_a_cut_call_is_not_complete(format: str) -> None:
    text = CALLS[format]
    cut = text.index("print") + 9
    events = run(argmend.CallParser(format=format, tools=TOOLS), [text[:cut]])
    done = [e for e in events if isinstance(e, CallDone)]
    assert len(done) == 1, events
    end = done[0].end
    assert not end.complete
    assert end.args["content"].startswith('print("h'), end.args
    assert end.cut == "stream_ended" or not end.complete


def test_formats_are_told_by_their_first_marker_without_one() -> None:
    for format in ["kimi_k2", "gpt_oss", "deepseek_v3", "qwen3_coder", "glm45", "minimax_m2", "deepseek_v32", "gemma4"]:
        events = run(argmend.CallParser(tools=TOOLS), [f"Sure.\n{CALLS[format]}"])
        done = [e for e in events if isinstance(e, CallDone)]
        assert [(d.name, d.end.args) for d in done] == [("write_file", TRUTH)], (format, events)


def test_parameters_are_typed_by_the_schema() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n<parameter=on>\ntrue\n</parameter>\n</function>\n</tool_call>"
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer"}, "on": {"type": "boolean"}}},
            },
        }
    ]
    typed = run(argmend.CallParser(format="qwen3_coder", tools=tools), [text])[-1]
    assert typed.end.args == {"n": 5, "on": True}
    untyped = run(argmend.CallParser(format="qwen3_coder"), [text])[-1]
    assert untyped.end.args == {"n": "5", "on": "true"}


def test_python_literals() -> None:
    text = "[f(a='it\\'s', b=[1, (2, 3)], c={'k': None}, d=True), g()]"
    events = run(argmend.CallParser(format="pythonic"), [text])
    done = [(e.name, e.end.args) for e in events if isinstance(e, CallDone)]
    assert done == [("f", {"a": "it's", "b": [1, [2, 3]], "c": {"k": None}, "d": True}), ("g", {})]


def test_value_and_events_read_live() -> None:
    parser = argmend.CallParser(format="kimi_k2")
    events = parser.feed(
        '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "x'
    )
    started = next(e for e in events if isinstance(e, CallStarted))
    assert started.to_dict() == {"event": "call_started", "call": 0, "id": None, "name": "f"}
    assert parser.value(0) == {"a": "x"}
    assert started.value == {"a": "x"}
    fields = [e for e in events if isinstance(e, Field)]
    assert fields and fields[-1].event.kind == "delta" and fields[-1].event.path == "/a"
    events = parser.feed('y"}<|tool_call_end|><|tool_calls_section_end|>') + parser.finish()
    done = events[-1]
    assert isinstance(done, CallDone) and done.value == {"a": "xy"} and started.value == {"a": "xy"}
    assert done.to_dict()["event"] == "call_done"
    assert parser.calls() == 1 and parser.name(0) == "f"
    with pytest.raises(RuntimeError, match="finished"):
        parser.feed("more")
    with pytest.raises(IndexError):
        parser.value(3)


def test_text_and_nameless_calls() -> None:
    events = run(argmend.CallParser(), ["I could emit a <tool_call> here, but ", "<tool_call>{}</tool_call>", " no."])
    assert "".join(e.text for e in events if isinstance(e, Text)) == "I could emit a <tool_call> here, but  no."
    assert [e.kind for e in events if isinstance(e, Skipped)] == ["nameless_call"]


def test_bad_format_names_them_all() -> None:
    with pytest.raises(ValueError, match="qwen3_coder"):
        argmend.CallParser(format="no_such_format")
    assert "qwen3_coder" in argmend.CallParser.formats()
    assert argmend.CallParser(format="qwen3_xml").format == "qwen3_coder"
    assert repr(argmend.CallParser()) == "CallParser()"


def test_docstring() -> None:
    failures, _ = doctest.testmod(argmend._argmend, extraglobs={"argmend": argmend}, verbose=False)
    assert failures == 0
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(argmend.CallParser, "CallParser", globs={"argmend": argmend}):
        runner.run(test)
    assert runner.failures == 0
