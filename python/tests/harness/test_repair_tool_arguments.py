# Adapted from Pydantic AI Harness's own test suite for its capability of the
# same name, to run it against argmend's `RepairToolArguments` (issue 27):
#
#   repository: pydantic/pydantic-ai-harness (github.com)
#   path:       tests/repair_tool_arguments/test_capability.py
#   commit:     3025bd08588ca3aaa7fefa90dc61c66cdb3870bc, the version whose
#               API matches pydantic-ai-harness 0.62.0 (pinned in
#               python/requirements-test.txt): `Coder()` without a directory,
#               the workspace given to `agent.run`. With change 4 alone it
#               passes against the harness's own capability, all 27 tests.
#   license:    MIT, Copyright (c) 2026 Pydantic Services Inc. (./LICENSE,
#               as shipped in the pydantic-ai-harness 0.62.0 wheel)
#
# Changes from the original, all of them:
#  1. This header.
#  2. `RepairToolArguments` is argmend's (`argmend.pydantic_ai`); the harness's
#     is imported as `HarnessRepairToolArguments`, only to be swapped out of
#     `Coder` (3).
#  3. The `coder` fixture runs `Coder()`'s capabilities with argmend's
#     capability in place of the harness's (`argmend_coder()`), so both
#     fixtures test argmend.
#  4. A retry is `is_retry(part)`: a `RetryPromptPart`, or a
#     `ToolReturnPart(outcome='retried')`, which is how pydantic-ai 2.6x reports
#     a validation retry. Every `isinstance(part, RetryPromptPart)` became it.
#  5. `test_repair_failure_retries` makes `argmend.Tool` (what the capability
#     repairs with) raise, where the original made `json_repair.repair_json`
#     raise; `import json_repair` is gone.
#  6. `import argmend`, and the imports that (3) and (4) use.
#
# No test is marked xfail: argmend passes every one (no divergence to list in
# corpus/DIVERGENCES.md).
#
# Run by pytest over python/tests (tests/python.rs, in CI); `capfire` is
# logfire's pytest fixture (logfire is pinned in python/requirements-test.txt).

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from logfire.testing import CaptureLogfire
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability, CombinedCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.test import TestModel
from pydantic_ai.workspaces import LocalWorkspaceBackend

from pydantic_ai_harness.coder import Coder
from pydantic_ai_harness.filesystem import FileSystem
from pydantic_ai_harness.repair_tool_arguments import RepairToolArguments as HarnessRepairToolArguments

import argmend
from argmend.pydantic_ai import RepairToolArguments

pytestmark = pytest.mark.anyio


def is_retry(part: object) -> bool:
    """A retry sent to the model: a `RetryPromptPart`, or the tool return with
    `outcome='retried'` that pydantic-ai 2.6x sends for a validation error."""
    return isinstance(part, RetryPromptPart) or (
        isinstance(part, ToolReturnPart) and getattr(part, 'outcome', None) == 'retried'
    )


def argmend_coder() -> CombinedCapability[object]:
    """`Coder()`'s capabilities, with argmend's `RepairToolArguments` in place of the harness's."""
    parts = list(Coder().capabilities)
    swapped = [RepairToolArguments() if isinstance(part, HarnessRepairToolArguments) else part for part in parts]
    assert sum(isinstance(part, RepairToolArguments) for part in swapped) == 1
    return CombinedCapability(swapped)


def model_for(respond: Callable[[list[ModelMessage], AgentInfo], ModelResponse]) -> FunctionModel:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | dict[int, DeltaToolCall]]:
        for part in respond(messages, info).parts:
            if isinstance(part, ToolCallPart):
                arguments = part.args if isinstance(part.args, str) else part.args_as_json_str()
                yield {0: DeltaToolCall(name=part.tool_name, json_args=arguments)}
            else:
                assert isinstance(part, TextPart)
                yield part.content

    return FunctionModel(respond, stream_function=stream)


@pytest.fixture(params=['standalone', 'coder'])
def capabilities(request: pytest.FixtureRequest, tmp_path: Path) -> list[AbstractCapability[object]]:
    if request.param == 'coder':
        return [argmend_coder()]
    return [RepairToolArguments(), FileSystem(root_dir=tmp_path, content_hashes=False)]


class TestRepairToolArguments:
    async def test_dictionary_arguments(self, capabilities: list[AbstractCapability[object]], tmp_path: Path) -> None:
        model = TestModel(call_tools=['write_file'], seed=0)
        agent = Agent(model, capabilities=capabilities)
        result = await agent.run('Write a file', workspace=LocalWorkspaceBackend(working_dir=tmp_path))
        assert not any(is_retry(part) for message in result.all_messages() for part in message.parts)

    @pytest.mark.parametrize('error', [ValueError, RecursionError])
    async def test_repair_failure_retries(
        self,
        capabilities: list[AbstractCapability[object]],
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        error: type[Exception],
    ) -> None:
        def fail(*args: object, **kwargs: object) -> argmend.Tool:
            raise error('repair failed')

        monkeypatch.setattr(argmend, 'Tool', fail)
        await self.test_invalid_schema_still_retries(capabilities, tmp_path, '{"path": "hello.txt",}')

    @pytest.mark.parametrize(
        'arguments',
        [
            '{"path": "hello.txt", "content": "hello"}',
            {'path': 'hello.txt', 'content': 'hello'},
            '{"path": "hello.txt", "content": "hello",}',
            "{'path': 'hello.txt', 'content': 'hello'}",
            '{"path": "hello.txt", "content": "hello"',
        ],
    )
    async def test_write_arguments(
        self, capabilities: list[AbstractCapability[object]], tmp_path: Path, arguments: str | dict[str, str]
    ) -> None:
        calls = 0

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            nonlocal calls
            calls += 1
            if calls == 1:
                return ModelResponse(parts=[ToolCallPart('write_file', arguments)])
            return ModelResponse(parts=[TextPart('done')])

        agent = Agent(model_for(respond), capabilities=capabilities)
        result = await agent.run('Write hello.txt', workspace=LocalWorkspaceBackend(working_dir=tmp_path))
        assert result.output == 'done'
        assert (tmp_path / 'hello.txt').read_text() == 'hello'
        assert calls == 2
        assert not any(is_retry(part) for message in result.all_messages() for part in message.parts)

    @pytest.mark.parametrize('arguments', ['{"path": "hello.txt",}', '{"path": "hello.txt"}', 'not JSON'])
    async def test_invalid_schema_still_retries(
        self, capabilities: list[AbstractCapability[object]], tmp_path: Path, arguments: str
    ) -> None:
        calls = 0

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            nonlocal calls
            calls += 1
            if calls == 1:
                return ModelResponse(parts=[ToolCallPart('write_file', arguments)])
            assert any(is_retry(part) for message in messages for part in message.parts)
            return ModelResponse(parts=[TextPart('invalid arguments')])

        agent = Agent(model_for(respond), capabilities=capabilities)
        await agent.run('Write hello.txt', workspace=LocalWorkspaceBackend(working_dir=tmp_path))
        assert not (tmp_path / 'hello.txt').exists()

    async def test_repaired_edit_preserves_code(
        self, capabilities: list[AbstractCapability[object]], tmp_path: Path
    ) -> None:
        path = tmp_path / 'hello.py'
        path.write_text('old\n')
        calls = 0

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            nonlocal calls
            calls += 1
            if calls == 1:
                return ModelResponse(
                    parts=[
                        ToolCallPart(
                            'edit_file',
                            '{"path":"hello.py","old_text":"old\\n",'
                            '"new_text":"print(\\"日本語\\")\\npath = \\"C:\\\\tmp\\"\\n",}',
                        )
                    ]
                )
            return ModelResponse(parts=[TextPart('done')])

        agent = Agent(model_for(respond), capabilities=capabilities)
        await agent.run('Edit hello.py', workspace=LocalWorkspaceBackend(working_dir=tmp_path))
        assert path.read_text() == 'print("日本語")\npath = "C:\\tmp"\n'

    @pytest.mark.parametrize('arguments', ['{"value": "secret"}', '{"value": "secret",}', {'value': 'secret'}])
    async def test_standalone_custom_tool_and_telemetry(
        self, arguments: str | dict[str, str], capfire: CaptureLogfire
    ) -> None:
        calls = 0

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            nonlocal calls
            calls += 1
            if calls == 1:
                return ModelResponse(parts=[ToolCallPart('echo', arguments)])
            return ModelResponse(parts=[TextPart('done')])

        agent = Agent(model_for(respond), capabilities=[RepairToolArguments()])
        agent.instrument = InstrumentationSettings()
        received: list[str] = []

        @agent.tool_plain
        def echo(value: str) -> str:
            received.append(value)
            return value

        await agent.run('Echo')
        assert received == ['secret']
        spans = [span for span in capfire.exporter.exported_spans_as_dict() if span['name'] == 'repair_tool_arguments']
        assert len(spans) == int(isinstance(arguments, str) and arguments.endswith(',}'))
        assert 'secret' not in str(spans)
