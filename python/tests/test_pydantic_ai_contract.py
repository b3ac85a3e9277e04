"""The contract of ``argmend.pydantic_ai.RepairToolArguments``, held as an
agent that writes files sees it.

An agent with a file tool (``save``: write ``text`` to ``name`` under a
temporary folder; ``patch``: replace ``before`` with ``after`` in a file) runs
on a ``FunctionModel`` that sends one call and then ends the run in text. The
tests look at what reached the disk, at the messages pydantic-ai sent back to
the model, and at the spans the capability left:

- arguments that are already right (valid JSON text, or a dict) reach the tool
  as they were, and leave no span;
- broken arguments are mended before pydantic-ai validates them, so the tool
  runs once and the model is never asked again;
- when the mend fails (nothing JSON in the text, arguments still wrong for the
  schema, argmend itself raising), the text goes to validation as it came, and
  the model is asked again, as it would be without the capability;
- each attempt at a mend is one ``repair_tool_arguments`` span, whose
  attributes say what happened and never hold the arguments;
- the retries pydantic-ai counts are the ones it would count without the
  capability: a mended call costs none, a failed mend costs one, the same
  whether the model streamed the call or sent it whole, and whichever way
  this pydantic-ai reports a retry.

``test_pydantic_ai.py`` covers the options (``refuse_truncated``,
``retry_doubtful``, ``coerce_valid_json``, the schema's depth).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent, RunContext
from pydantic_ai.exceptions import UnexpectedModelBehavior
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

SPAN = "repair_tool_arguments"


def asked_again(part: Any) -> bool:
    """Whether a part of a request tells the model to send its call again.
    pydantic-ai has said so two ways: a ``RetryPromptPart``, and (2.6x, for a
    validation error) a ``ToolReturnPart`` whose ``outcome`` is ``retried``.
    Both count."""
    if isinstance(part, RetryPromptPart):
        return True
    return isinstance(part, ToolReturnPart) and getattr(part, "outcome", None) == "retried"


def retries_in(messages: list[ModelMessage]) -> int:
    return sum(asked_again(part) for message in messages if isinstance(message, ModelRequest) for part in message.parts)


@dataclass
class OneCall:
    """A model that sends `calls` tool calls, one per turn, each with the
    arguments `args` (text or a dict), and then says `done`; as a whole
    response, or streamed in pieces of `piece` characters."""

    tool: str
    args: str | dict[str, Any]
    calls: int = 1
    piece: int = 5
    sent: int = 0
    retries_seen: list[int] = field(default_factory=list)

    def _turn(self, messages: list[ModelMessage]) -> bool:
        """Whether this turn sends the call (else it ends the run)."""
        self.retries_seen.append(retries_in(messages))
        if self.sent < self.calls:
            self.sent += 1
            return True
        return False

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if self._turn(messages):
            return ModelResponse(parts=[ToolCallPart(self.tool, self.args, tool_call_id=f"c{self.sent}")])
        return ModelResponse(parts=[TextPart("done")])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo):
        if not self._turn(messages):
            yield "done"
            return
        assert isinstance(self.args, str), "a streamed call is text"
        for start in range(0, len(self.args), self.piece):
            yield {
                0: DeltaToolCall(
                    name=self.tool if start == 0 else None,
                    json_args=self.args[start : start + self.piece],
                    tool_call_id=f"c{self.sent}",
                )
            }

    def model(self) -> FunctionModel:
        return FunctionModel(self.respond, stream_function=self.stream)


@dataclass
class Run:
    """What one agent run left: the files, the tool's calls, the retries the
    model was sent, the spans, and the retry count each tool call saw."""

    folder: Path
    tool_calls: list[dict[str, Any]]
    retries: int
    spans: list[Any]
    retry_counts: list[int]


def run_agent(
    model: OneCall,
    folder: Path,
    *,
    capability: RepairToolArguments | None = None,
    with_capability: bool = True,
    streamed: bool = False,
    retries: int = 1,
) -> Run:
    """Runs an agent with the file tools `save` and `patch` on `model`."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    capabilities = [capability or RepairToolArguments()] if with_capability else []
    agent = Agent(model.model(), capabilities=capabilities, retries=retries)
    agent.instrument = InstrumentationSettings(tracer_provider=provider)
    tool_calls: list[dict[str, Any]] = []
    retry_counts: list[int] = []

    @agent.tool
    def save(ctx: RunContext[None], name: str, text: str) -> str:
        """Write `text` to the file `name`."""
        tool_calls.append({"name": name, "text": text})
        retry_counts.append(ctx.retry)
        (folder / name).write_text(text, encoding="utf-8")
        return f"wrote {len(text)} characters"

    @agent.tool
    def patch(ctx: RunContext[None], name: str, before: str, after: str) -> str:
        """Replace `before` with `after` in the file `name`."""
        tool_calls.append({"name": name, "before": before, "after": after})
        retry_counts.append(ctx.retry)
        path = folder / name
        old = path.read_text(encoding="utf-8")
        assert before in old, "the model's `before` is not in the file"
        path.write_text(old.replace(before, after, 1), encoding="utf-8")
        return "patched"

    if streamed:

        async def go():
            async with agent.run_stream("go") as result:
                await result.get_output()
                return result.all_messages()

        messages = asyncio.run(go())
    else:
        messages = agent.run_sync("go").all_messages()
    spans = [span for span in exporter.get_finished_spans() if span.name == SPAN]
    return Run(folder, tool_calls, retries_in(messages), spans, retry_counts)


WAYS = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])

# ---------------------------------------------------------------------------
# Arguments that are already right


@WAYS
def test_valid_text_reaches_the_tool_as_it_was_and_leaves_no_span(tmp_path: Path, streamed: bool):
    run = run_agent(OneCall("save", '{"name": "a.txt", "text": "one, two"}'), tmp_path, streamed=streamed)
    assert (tmp_path / "a.txt").read_text() == "one, two"
    assert (run.retries, run.spans) == (0, [])


def test_a_dict_reaches_the_tool_as_it_was_and_leaves_no_span(tmp_path: Path):
    run = run_agent(OneCall("save", {"name": "b.txt", "text": "{'not': 'json'}"}), tmp_path)
    assert (tmp_path / "b.txt").read_text() == "{'not': 'json'}"
    assert (run.retries, run.spans) == (0, [])


def test_the_hook_hands_back_the_very_object_it_got_when_nothing_is_broken():
    handed: list[tuple[Any, Any]] = []

    class Watched(RepairToolArguments):
        async def before_tool_validate(self, ctx, *, call, tool_def, args):
            out = await super().before_tool_validate(ctx, call=call, tool_def=tool_def, args=args)
            handed.append((args, out))
            return out

    for args in ['{"name": "c.txt",  "text": "x"}', {"name": "c.txt", "text": "x"}]:
        # Valid text with odd spacing is still not rewritten.
        agent = Agent(OneCall("save", args).model(), capabilities=[Watched()])

        @agent.tool_plain
        def save(name: str, text: str) -> str:
            return "ok"

        agent.run_sync("go")
    assert [out is args for args, out in handed] == [True, True]


# ---------------------------------------------------------------------------
# Broken arguments, mended before validation

BROKEN = [
    # (id, tool, arguments as the model wrote them, the file afterwards)
    ("trailing_comma", "save", '{"name": "t.txt", "text": "hello",}', "hello"),
    ("single_quotes", "save", "{'name': 't.txt', 'text': 'hello'}", "hello"),
    ("bare_keys", "save", '{name: "t.txt", text: "hello"}', "hello"),
    ("cut_off", "save", '{"name": "t.txt", "text": "hello', "hello"),
    ("fenced_with_prose", "save", 'Here you go:\n```json\n{"name": "t.txt", "text": "hello"}\n```', "hello"),
    (
        "code_with_unescaped_quotes",
        "save",
        '{"name": "t.txt", "text": "print("hi")"}',
        'print("hi")',
    ),
]


@WAYS
@pytest.mark.parametrize("case", BROKEN, ids=[case[0] for case in BROKEN])
def test_broken_arguments_are_mended_before_validation(tmp_path: Path, case, streamed: bool):
    _, tool, args, content = case
    run = run_agent(OneCall(tool, args), tmp_path, streamed=streamed)
    assert (tmp_path / "t.txt").read_text() == content
    assert len(run.tool_calls) == 1
    assert run.retries == 0
    assert len(run.spans) == 1


@WAYS
def test_a_mended_patch_keeps_non_ascii_text_escapes_and_backslashes(tmp_path: Path, streamed: bool):
    (tmp_path / "greet.py").write_text("greeting = 1\n", encoding="utf-8")
    # Escapes as JSON writes them (\n, \", \\) and text beyond ASCII, in a
    # call with a trailing comma: the mend touches the comma and nothing else.
    args = '{"name": "greet.py", "before": "greeting = 1\\n", "after": "greeting = \\"Grüße, 世界\\"\\nroot = \\"C:\\\\Users\\"\\n",}'
    run = run_agent(OneCall("patch", args), tmp_path, streamed=streamed)
    assert (tmp_path / "greet.py").read_text(encoding="utf-8") == 'greeting = "Grüße, 世界"\nroot = "C:\\Users"\n'
    assert run.retries == 0


# ---------------------------------------------------------------------------
# A mend that fails: left to validation, and the model asked again

UNMENDABLE = [
    ("prose", "save", "I would rather not write that file."),
    ("missing_field", "save", "{'name': 'u.txt',}"),
    ("wrong_type", "save", "{'name': 'u.txt', 'text': {'a': 1},}"),
]


@WAYS
@pytest.mark.parametrize("case", UNMENDABLE, ids=[case[0] for case in UNMENDABLE])
def test_arguments_no_mend_makes_right_go_to_validation_and_a_retry(tmp_path: Path, case, streamed: bool):
    _, tool, args = case
    model = OneCall(tool, args)
    run = run_agent(model, tmp_path, streamed=streamed)
    assert not (tmp_path / "u.txt").exists()
    assert run.tool_calls == []
    assert run.retries == 1
    assert model.retries_seen[-1] == 1  # the model's second turn saw the request to send it again


@pytest.mark.parametrize("error", [ValueError, RecursionError, MemoryError, argmend.Error])
def test_an_error_inside_argmend_leaves_the_text_as_it_came(tmp_path: Path, monkeypatch, error):
    got: list[Any] = []

    class Broken:
        def __init__(self, *args, **kwargs):
            pass

        def normalize(self, text):
            got.append(text)
            raise error("argmend failed")

    monkeypatch.setattr(argmend, "Tool", Broken)
    args = '{"name": "e.txt", "text": "x",}'
    run = run_agent(OneCall("save", args), tmp_path)
    assert got == [args]
    # pydantic-ai's own JSON parser refuses the trailing comma: a retry, no file.
    assert not (tmp_path / "e.txt").exists()
    assert run.retries == 1
    [span] = run.spans
    assert span.attributes["argmend.outcome"] == "failed"
    assert span.attributes["argmend.error"] == error.__name__


# ---------------------------------------------------------------------------
# Spans

SECRET = "sk-correct-horse-battery-staple"


def rendered(span: Any) -> str:
    return repr(dict(span.attributes)) + span.name


def test_a_mend_leaves_one_span_saying_what_was_done(tmp_path: Path):
    args = "{'name': 'k.txt', 'text': '" + SECRET + "',}"
    run = run_agent(OneCall("save", args), tmp_path)
    [span] = run.spans
    attributes = dict(span.attributes)
    assert attributes["gen_ai.tool.name"] == "save"
    assert attributes["argmend.outcome"] == "repaired"
    assert attributes["argmend.verdict"] == "repaired"
    assert attributes["argmend.fix_count"] == len(argmend.repair(args).fixes) > 0
    assert set(attributes["argmend.fix_kinds"]) == {fix.kind for fix in argmend.repair(args).fixes}
    assert attributes["argmend.doubt_count"] == 0
    assert isinstance(attributes["argmend.strategy"], int) and attributes["argmend.strategy_name"]
    assert SECRET not in rendered(span) and "k.txt" not in rendered(span)


def test_a_failed_mend_leaves_one_span_saying_so_without_the_text(tmp_path: Path):
    args = "no JSON here, only " + SECRET
    run = run_agent(OneCall("save", args), tmp_path)
    [span] = run.spans
    assert span.attributes["argmend.outcome"] == "failed"
    assert span.attributes["argmend.verdict"] == "not_json"
    assert SECRET not in rendered(span)


def test_one_span_per_attempt(tmp_path: Path):
    # The same broken call three times, each mended and run: three spans.
    run = run_agent(OneCall("save", "{name: 'n.txt', text: 'x'}", calls=3), tmp_path)
    assert len(run.tool_calls) == 3
    assert [span.attributes["argmend.outcome"] for span in run.spans] == ["repaired"] * 3


def test_a_refused_mend_says_so_in_its_span(tmp_path: Path):
    run = run_agent(
        OneCall("save", '{"name": "r.txt", "text": "half of it'), tmp_path, capability=RepairToolArguments(refuse_truncated=True)
    )
    [span] = run.spans
    assert span.attributes["argmend.outcome"] == "refused_truncated"
    assert (run.tool_calls, run.retries) == ([], 1)


# ---------------------------------------------------------------------------
# Retries, counted as pydantic-ai counts them


@WAYS
def test_a_mended_call_costs_no_retry_and_a_failed_one_costs_one(tmp_path: Path, streamed: bool):
    mended = run_agent(OneCall("save", "{name: 'm.txt', text: 'x',}"), tmp_path, streamed=streamed)
    assert mended.retry_counts == [0]  # the tool ran on its first try
    assert mended.retries == 0
    failed = run_agent(OneCall("save", "{name: 'm.txt',}"), tmp_path, streamed=streamed)
    assert failed.retries == 1


@WAYS
@pytest.mark.parametrize("with_capability", [True, False], ids=["capability", "alone"])
def test_a_failed_mend_uses_up_the_retries_as_pydantic_ai_alone_would(tmp_path: Path, streamed: bool, with_capability: bool):
    # Every turn sends arguments that no mend makes right: with `retries=2`
    # pydantic-ai gives up after the third call, with or without the capability.
    model = OneCall("save", "{'name': 'x.txt'}", calls=10)
    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries count of 2"):
        run_agent(model, tmp_path, with_capability=with_capability, streamed=streamed, retries=2)
    assert model.sent == 3
    assert model.retries_seen == [0, 1, 2]


def test_a_call_the_capability_mends_is_one_pydantic_ai_alone_retries(tmp_path: Path):
    # The measure of the capability: the same call, with and without it.
    args = "{'name': 'w.txt', 'text': 'x',}"
    alone = run_agent(OneCall("save", args), tmp_path, with_capability=False)
    assert (alone.tool_calls, alone.retries) == ([], 1)
    mended = run_agent(OneCall("save", args), tmp_path)
    assert (mended.tool_calls, mended.retries) == ([{"name": "w.txt", "text": "x"}], 0)


@pytest.mark.filterwarnings("ignore:.*RetryPromptPart.*")
def test_both_ways_of_reporting_a_retry_are_counted():
    assert asked_again(RetryPromptPart(content="again", tool_name="save", tool_call_id="c1"))
    part = ToolReturnPart(tool_name="save", content="again", tool_call_id="c1")
    assert not asked_again(part)
    if "outcome" in ToolReturnPart.__dataclass_fields__:
        assert asked_again(ToolReturnPart(tool_name="save", content="again", tool_call_id="c1", outcome="retried"))
