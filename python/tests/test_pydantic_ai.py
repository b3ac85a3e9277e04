"""argmend.pydantic_ai.RepairToolArguments, driven by pydantic-ai itself.

An `Agent` runs on a `FunctionModel` that emits the broken arguments models
really send; each test checks how often the tool ran, with which arguments,
and whether pydantic-ai had to send a `RetryPromptPart`.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel
from pydantic_ai import Agent, Tool
from pydantic_ai.capabilities import Instrumentation
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

import argmend
from argmend.pydantic_ai import RepairToolArguments


def is_retry(part) -> bool:
    """A retry prompt: `RetryPromptPart`, or in pydantic-ai 2 the tool return
    with `outcome='retried'` that validation errors produce."""
    return isinstance(part, RetryPromptPart) or (
        isinstance(part, ToolReturnPart) and getattr(part, "outcome", None) == "retried"
    )


class Scripted:
    """A model that sends one tool call with `args` (as given, a str or a
    dict), then answers in text, and remembers whether it saw a retry."""

    def __init__(self, tool: str, args: str | dict, stream_chunk: int | None = None):
        self.tool = tool
        self.args = args
        self.stream_chunk = stream_chunk
        self.retries: list = []

    def _seen(self, messages: list[ModelMessage]) -> bool:
        for message in messages:
            if isinstance(message, ModelRequest):
                for part in message.parts:
                    if is_retry(part):
                        self.retries.append(part)
                    if isinstance(part, (RetryPromptPart, ToolReturnPart)):
                        return True
        return False

    def function(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if self._seen(messages):
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart(self.tool, self.args, tool_call_id="call-1")])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo):
        if self._seen(messages):
            yield "done"
            return
        assert isinstance(self.args, str)
        step = self.stream_chunk or 7
        for start in range(0, len(self.args), step):
            piece = self.args[start : start + step]
            yield {0: DeltaToolCall(name=self.tool if start == 0 else None, json_args=piece, tool_call_id="call-1")}

    def model(self) -> FunctionModel:
        return FunctionModel(self.function, stream_function=self.stream)


class WriteFile(BaseModel):
    path: str
    content: str


def agent_with_tools(model: FunctionModel, capability: RepairToolArguments | None = None, extra=()):
    """An agent with `write_file(path, content)`, `read_many(paths: list[str])` and
    `resize(width: int, height: int)`; returns the agent and the list of calls made."""
    calls: list[tuple[str, dict]] = []
    agent = Agent(model, capabilities=[*extra, capability or RepairToolArguments()])

    @agent.tool_plain
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        calls.append(("write_file", {"path": path, "content": content}))
        return "ok"

    @agent.tool_plain
    def read_many(paths: list[str]) -> str:
        """Read files."""
        calls.append(("read_many", {"paths": paths}))
        return "ok"

    @agent.tool_plain
    def resize(width: int, height: int) -> str:
        """Resize."""
        calls.append(("resize", {"width": width, "height": height}))
        return "ok"

    return agent, calls


PYTHON_CODE = 'def greet(name):\n    print("Hello, " + name + "!")\n    return {"greeted": name}\n'
CASES = [
    # (id, tool, raw arguments, the arguments the tool must get)
    ("single_quotes", "write_file", "{'path': 'a.txt', 'content': 'hi'}", {"path": "a.txt", "content": "hi"}),
    ("trailing_commas", "read_many", '{"paths": ["a.py", "b.py",],}', {"paths": ["a.py", "b.py"]}),
    ("bare_keys_python_literals", "resize", "{width: 640, height: 480,}", {"width": 640, "height": 480}),
    (
        "code_with_unescaped_quotes",
        "write_file",
        '{"path": "greet.py", "content": "' + PYTHON_CODE.replace("\n", "\\n") + '"}',
        {"path": "greet.py", "content": PYTHON_CODE},
    ),
    (
        "code_with_raw_newlines_and_quotes",
        "write_file",
        '{"path": "greet.py", "content": "' + PYTHON_CODE + '"}',
        {"path": "greet.py", "content": PYTHON_CODE},
    ),
    ("lone_value_for_a_list", "read_many", "{paths: 'src/main.rs'}", {"paths": ["src/main.rs"]}),
    ("bare_path_for_a_list", "read_many", '{"paths": src/main.rs}', {"paths": ["src/main.rs"]}),
    ("quoted_numbers", "resize", "{'width': '640', 'height': '480',}", {"width": 640, "height": 480}),
    ("fenced", "resize", '```json\n{"width": 1, "height": 2}\n```', {"width": 1, "height": 2}),
    ("cut_off", "write_file", '{"path": "notes.md", "content": "# Notes\\n- one', {"path": "notes.md", "content": "# Notes\n- one"}),
]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_broken_arguments_run_the_tool_once_without_a_retry(case, streamed):
    _, tool, raw, expected = case
    script = Scripted(tool, raw)
    agent, calls = agent_with_tools(script.model())
    if streamed:

        async def run():
            async with agent.run_stream("go") as result:
                await result.get_output()

        import asyncio

        asyncio.run(run())
    else:
        agent.run_sync("go")
    assert calls == [(tool, expected)]
    assert script.retries == []


def test_without_the_capability_the_same_calls_are_retried():
    # The baseline the capability is measured against: pydantic-ai alone.
    script = Scripted("resize", "{width: 640, height: 480,}")
    calls: list = []
    agent = Agent(script.model())

    @agent.tool_plain
    def resize(width: int, height: int) -> str:
        calls.append((width, height))
        return "ok"

    agent.run_sync("go")
    assert calls == []
    assert len(script.retries) == 1


def test_arguments_still_wrong_for_the_schema_are_retried_and_the_tool_is_not_run():
    # Missing `content`, and an object where a string belongs: no repair makes it right.
    for raw in ["{'path': 'a.txt'}", '{"path": {"nested": 1}, "content": "x"}', "not arguments at all ("]:
        script = Scripted("write_file", raw)
        agent, calls = agent_with_tools(script.model())
        agent.run_sync("go")
        assert calls == [], raw
        assert len(script.retries) == 1, raw


def test_valid_json_and_parsed_arguments_pass_through_unchanged():
    capability = RepairToolArguments()
    seen: list = []

    class Spy(RepairToolArguments):
        async def before_tool_validate(self, ctx, *, call, tool_def, args):
            result = await super().before_tool_validate(ctx, call=call, tool_def=tool_def, args=args)
            seen.append((args, result))
            return result

    valid = '{"width": "640", "height": 480}'  # valid JSON, wrong for the schema: left to validation
    parsed = {"width": 1, "height": 2}
    for args in [valid, parsed]:
        script = Scripted("resize", args)
        agent, calls = agent_with_tools(script.model(), Spy())
        agent.run_sync("go")
        assert seen[-1][1] is args
    assert capability.use_schema


def test_coerce_valid_json_applies_the_schema_to_valid_json_too():
    raw = '{"paths": "src/main.rs"}'  # valid JSON, but the schema wants a list
    script = Scripted("read_many", raw)
    agent, calls = agent_with_tools(script.model())
    agent.run_sync("go")
    assert calls == [] and len(script.retries) == 1  # the harness contract: passed through, retried
    script = Scripted("read_many", raw)
    agent, calls = agent_with_tools(script.model(), RepairToolArguments(coerce_valid_json=True))
    agent.run_sync("go")
    assert calls == [("read_many", {"paths": ["src/main.rs"]})]
    assert script.retries == []


def run_streamed(agent: Agent) -> None:
    """`agent.run` on the model's stream function, as a streaming model would."""

    async def ignore(ctx, events):
        async for _ in events:
            pass

    asyncio.run(agent.run("go", event_stream_handler=ignore))


def spans_for(
    script: Scripted,
    capability: RepairToolArguments | None = None,
    *,
    streamed: bool = False,
    tools=None,
    include_content: bool = True,
):
    """The `repair_tool_arguments` spans of one run, and the tool calls made.
    `tools` (pydantic-ai `Tool`s) replace the three of `agent_with_tools`."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    if tools is None:
        agent, calls = agent_with_tools(script.model(), capability)
    else:
        calls = []
        agent = Agent(script.model(), tools=tools, capabilities=[capability or RepairToolArguments()])
    agent.instrument = InstrumentationSettings(tracer_provider=provider, include_content=include_content)
    if streamed:
        run_streamed(agent)
    else:
        agent.run_sync("go")
    return [span for span in exporter.get_finished_spans() if span.name == "repair_tool_arguments"], calls


def test_one_span_per_repair_attempt_with_verdict_strategy_and_fix_kinds_and_no_content():
    secret = "hunter2-secret-value"
    raw = "{'path': 'secret.txt', 'content': '" + secret + "',}"
    spans, calls = spans_for(Scripted("write_file", raw))
    assert calls == [("write_file", {"path": "secret.txt", "content": secret})]
    assert len(spans) == 1
    attributes = dict(spans[0].attributes)
    assert attributes["argmend.verdict"] == "repaired"
    assert (attributes["argmend.strategy"], attributes["argmend.strategy_name"]) == (2, "single_quotes")
    assert set(attributes["argmend.fix_kinds"]) == {"replaced_quotes", "removed_comma"}
    assert attributes["argmend.outcome"] == "repaired"
    assert attributes["gen_ai.tool.name"] == "write_file"
    for value in attributes.values():
        rendered = json.dumps(value) if not isinstance(value, str) else value
        assert secret not in rendered and "secret.txt" not in rendered


def test_valid_json_emits_no_span():
    spans, calls = spans_for(Scripted("resize", '{"width": 1, "height": 2}'))
    assert spans == []
    assert calls == [("resize", {"width": 1, "height": 2})]


def test_a_repair_that_fails_leaves_the_original_arguments():
    # Nesting past argmend's depth limit: the capability gives up, validation decides.
    raw = "[" * 600
    spans, calls = spans_for(Scripted("resize", raw))
    assert calls == []
    assert len(spans) == 1
    assert dict(spans[0].attributes)["argmend.outcome"] == "failed"


def test_refuse_truncated_asks_for_the_call_again():
    raw = '{"path": "main.py", "content": "import os\\nprint(os.getc'
    script = Scripted("write_file", raw)
    agent, calls = agent_with_tools(script.model(), RepairToolArguments(refuse_truncated=True))
    agent.run_sync("go")
    assert calls == []
    assert len(script.retries) == 1
    assert "cut off" in str(script.retries[0].content)
    # Without the option the cut-off call runs with what arrived.
    script = Scripted("write_file", raw)
    agent, calls = agent_with_tools(script.model(), RepairToolArguments())
    agent.run_sync("go")
    assert calls == [("write_file", {"path": "main.py", "content": "import os\nprint(os.getc"})]


def test_without_the_schema_code_is_still_mended_by_the_tool_name():
    raw = '{"path": "a.js", "content": "console.log("hi", "there");"}'
    script = Scripted("write_file", raw)
    agent, calls = agent_with_tools(script.model(), RepairToolArguments(use_schema=False))
    agent.run_sync("go")
    assert calls == [("write_file", {"path": "a.js", "content": 'console.log("hi", "there");'})]


def test_the_schema_is_read_once_per_tool():
    capability = RepairToolArguments()
    for _ in range(3):
        script = Scripted("resize", "{width: 1, height: 2}")
        agent, calls = agent_with_tools(script.model(), capability)
        agent.run_sync("go")
        assert calls == [("resize", {"width": 1, "height": 2})]
    assert list(capability._tools) == ["resize"]


def test_works_beside_a_pydantic_model_tool():
    script = Scripted("save", "{'file': {path: 'a.txt', content: 'x',}}")
    saved: list = []
    agent = Agent(script.model(), capabilities=[RepairToolArguments()])

    @agent.tool_plain
    def save(file: WriteFile) -> str:
        saved.append(file)
        return "ok"

    agent.run_sync("go")
    assert saved == [WriteFile(path="a.txt", content="x")]
    assert script.retries == []


DOUBTFUL_WRITE = '{"path": "notes.txt", "content": "done"} note: "and more"'


def test_retry_doubtful_asks_for_the_call_again_naming_the_place():
    # The text after the arguments holds a quote: the content may have ended
    # early. By default the tool runs with argmend's reading.
    script = Scripted("write_file", DOUBTFUL_WRITE)
    agent, calls = agent_with_tools(script.model())
    agent.run_sync("go")
    assert calls == [("write_file", {"path": "notes.txt", "content": "done"})]
    assert script.retries == []

    for streamed in [False, True]:
        script = Scripted("write_file", DOUBTFUL_WRITE, stream_chunk=5)
        agent, calls = agent_with_tools(script.model(), RepairToolArguments(retry_doubtful=True))
        if streamed:

            async def run():
                async with agent.run_stream("go") as result:
                    await result.get_output()

            import asyncio

            asyncio.run(run())
        else:
            agent.run_sync("go")
        assert calls == []
        assert len(script.retries) == 1
        message = str(script.retries[0].content)
        offset = DOUBTFUL_WRITE.index("} note") + 2
        assert f"at byte {offset} (in `content`)" in message, message
        assert "the text after it was dropped" in message, message  # the reason
        assert 'done"} <<HERE>>' in message and '<<HERE>>note: "and more"' in message, message
        assert "Send the call again" in message, message


def test_retry_doubtful_lets_calls_without_a_doubt_run():
    capability = RepairToolArguments(retry_doubtful=True)
    for raw, expected in [
        ("{'path': 'a.txt', 'content': 'hi'}", {"path": "a.txt", "content": "hi"}),
        ('{"path": "a.txt", "content": "hi"}', {"path": "a.txt", "content": "hi"}),
    ]:
        script = Scripted("write_file", raw)
        agent, calls = agent_with_tools(script.model(), capability)
        agent.run_sync("go")
        assert calls == [("write_file", expected)], raw
        assert script.retries == [], raw


def test_the_span_counts_doubts_and_says_when_one_refused_the_call():
    spans, calls = spans_for(Scripted("write_file", DOUBTFUL_WRITE), RepairToolArguments(retry_doubtful=True))
    assert calls == []
    attributes = dict(spans[0].attributes)
    assert attributes["argmend.outcome"] == "refused_doubtful"
    assert list(attributes["argmend.doubt_kinds"]) == ["early_close"]
    assert attributes["argmend.doubt_count"] == 1
    for value in attributes.values():
        rendered = json.dumps(value) if not isinstance(value, str) else value
        assert "notes.txt" not in rendered and "and more" not in rendered


def test_the_place_is_a_path_where_there_is_one_else_the_byte_and_text():
    from types import SimpleNamespace

    from pydantic_ai.tools import ToolDefinition

    capability = RepairToolArguments(retry_doubtful=True)
    tool_def = ToolDefinition(name="echo", parameters_json_schema={"type": "object"})
    # The last string of an array that may have ended early: its index.
    raw = '["a", "b"] more "text"'
    doubts = argmend.repair(raw).doubts
    assert [d.kind for d in doubts] == ["early_close"]
    message = capability._doubt_message(tool_def, raw, doubts)
    assert f"at byte {doubts[0].offset} (in `[1]`): " in message, message
    # A key that is not an identifier is quoted; a multi-byte character
    # before the place is counted in bytes.
    raw = '{"é": 1, "a b": "x"} more "text"'
    doubts = argmend.repair(raw).doubts
    assert doubts[0].offset == raw.encode().index(b"more")
    message = capability._doubt_message(tool_def, raw, doubts)
    assert f'at byte {doubts[0].offset} (in `["a b"]`)' in message, message
    assert '"a b": "x"} <<HERE>>more "text"' in message, message
    # At the top level of a plain string there is no field: the byte and the
    # text around it name the place.
    doubt = SimpleNamespace(kind="quote_as_end", offset=4, reason="a quote was read as the end of its string")
    message = capability._doubt_message(tool_def, '"x" and "y"', [doubt, doubt])
    assert message.startswith("The arguments of this `echo` call can be read two ways at byte 4: "), message
    assert "(in `" not in message
    assert '"x" <<HERE>>and "y"' in message
    assert "There is 1 more such place." in message
    assert 'Escape every quote inside a string value as \\".' in message


# Issue 27: nothing argmend raises escapes the hook.


@pytest.mark.parametrize(
    "raw, span_count",
    [
        # Valid JSON to `json.loads`, as to the harness: passed through, no span.
        ('{"path": "a\ud800.txt", "content": "x"}', 0),
        # Malformed: argmend cannot take the lone surrogate (UnicodeEncodeError),
        # so the attempt fails in its span and the original goes on.
        ("{'path': 'a\ud800.txt', 'content': 'x',}", 1),
    ],
    ids=["valid", "malformed"],
)
def test_a_lone_surrogate_in_the_arguments_is_left_to_validation_and_retried(raw, span_count):
    assert "\ud800" in raw  # a real lone surrogate in the str, not an escape
    # Streamed: pydantic-ai's FunctionModel estimates usage from the whole
    # response with `args_as_dict`, which fails on a lone surrogate before any
    # hook runs; a streaming model hands the text to the hook.
    # pydantic-ai's instrumentation itself fails on it when it records content.
    script = Scripted("write_file", raw)
    spans, calls = spans_for(script, streamed=True, include_content=False)
    assert calls == []
    assert len(script.retries) == 1
    assert len(spans) == span_count
    if span_count:
        attributes = dict(spans[0].attributes)
        assert attributes["argmend.outcome"] == "failed"
        assert attributes["argmend.error"] == "UnicodeEncodeError"


def deep_schema(levels: int) -> dict:
    """An object schema whose `value` is `levels` objects deep, ending in a string."""
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return {"type": "object", "properties": {"value": schema}, "required": ["value"]}


def test_a_schema_nested_past_pythons_recursion_limit_is_an_argmend_error_not_a_recursion_error():
    # 600 levels made `json.dumps` raise RecursionError inside `argmend.Tool`.
    for levels in [300, 600, 5000]:
        with pytest.raises(argmend.Error, match="nests deeper than 512 levels"):
            argmend.Tool("deep", deep_schema(levels))
    argmend.Tool("deep", deep_schema(200))  # 402 levels of objects: taken


def deep_tool(levels: int, received: list) -> Tool:
    """A tool `deep` whose schema is `deep_schema(levels)`; its calls go to `received`."""

    def deep(**arguments) -> str:
        received.append(arguments)
        return "ok"

    return Tool.from_schema(deep, name="deep", description="Nested.", json_schema=deep_schema(levels))


@pytest.mark.parametrize("levels", [200, 300])
def test_a_schema_too_deep_for_argmend_is_left_out_of_the_repair(levels):
    # Taken (200), or too deep for argmend (300): then the tool's name alone
    # guides the repair and the span says why. Either way the repaired
    # arguments reach validation and the tool.
    received: list = []
    script = Scripted("deep", "{'value': {'a': 'x'},}")
    spans, _ = spans_for(script, tools=[deep_tool(levels, received)], include_content=False)
    assert received == [{"value": {"a": "x"}}]
    assert script.retries == []
    assert len(spans) == 1
    attributes = dict(spans[0].attributes)
    assert attributes["argmend.outcome"] == "repaired"
    assert attributes.get("argmend.schema_error") == (None if levels == 200 else "Error")


def test_a_schema_past_pythons_recursion_limit_never_stops_the_run():
    # 600 levels: `argmend.Tool` raised RecursionError out of the hook and the
    # run died. (No spans here: pydantic-ai's instrumentation cannot encode
    # tool definitions this deep.)
    received: list = []
    script = Scripted("deep", "{'value': {'a': 'x'},}")
    agent = Agent(script.model(), tools=[deep_tool(600, received)], capabilities=[RepairToolArguments()])
    agent.run_sync("go")
    assert received == [{"value": {"a": "x"}}]
    assert script.retries == []
    # Arguments that no repair makes right still reach validation and a retry.
    received.clear()
    script = Scripted("deep", "not arguments at all (")
    agent = Agent(script.model(), tools=[deep_tool(600, received)], capabilities=[RepairToolArguments()])
    agent.run_sync("go")
    assert received == []
    assert len(script.retries) == 1


@pytest.mark.parametrize("error", [RecursionError, RuntimeError, argmend.Error])
def test_any_error_from_argmend_leaves_the_arguments_to_validation(monkeypatch, error):
    # What the harness's own suite checks of json_repair, with any error.
    def fail(*args, **kwargs):
        raise error("repair failed")

    monkeypatch.setattr(argmend, "Tool", fail)
    script = Scripted("resize", "{width: 640, height: 480,}")
    spans, calls = spans_for(script)
    assert calls == []
    assert len(script.retries) == 1
    assert len(spans) == 1
    attributes = dict(spans[0].attributes)
    assert attributes["argmend.outcome"] == "failed"
    assert attributes["argmend.error"] == error.__name__


def test_valid_json_deeper_than_argmends_limit_passes_through_without_a_span():
    # `json.loads` reads it, so it is valid JSON: unchanged, no span, and
    # validation (an integer is wanted) asks for the call again.
    raw = '{"width": ' + "[" * 600 + "]" * 600 + ', "height": 1}'
    with pytest.raises(argmend.Error):
        argmend.repair(raw)  # past the engine's depth limit (512)
    for streamed in [False, True]:
        script = Scripted("resize", raw)
        spans, calls = spans_for(script, streamed=streamed)
        assert spans == []
        assert calls == []
        assert len(script.retries) == 1
