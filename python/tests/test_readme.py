"""The READMEs' Python examples run: each fenced ``python`` block of
``python/README.md`` and of argmend's own ``README.md`` (but the MCP client,
which ``tests/docs.rs`` runs against the server) is executed on its own, with the SDK clients it makes
(``OpenAI()``, ``AsyncAnthropic()``, …) answered by an ``httpx2.MockTransport``
that serves the recorded streams of ``corpus/model_streams/*.jsonl`` (Chat
Completions, Responses or Messages, by the request's path). A ``text`` block
right after a ``python`` block is what it prints.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest
from recordings import handler, recordings

README = Path(__file__).resolve().parents[1] / "README.md"
TOP_README = Path(__file__).resolve().parents[2] / "README.md"


def blocks(readme: Path = README) -> List[Tuple[int, str, Optional[str]]]:
    """``(line, code, expected output or None)`` for each python block."""
    text = readme.read_text(encoding="utf-8")
    fences = list(re.finditer(r"^```(\w*)\n(.*?)^```\n", text, re.S | re.M))
    out = []
    for n, fence in enumerate(fences):
        if fence.group(1) != "python":
            continue
        expected = None
        following = fences[n + 1] if n + 1 < len(fences) else None
        if following and following.group(1) == "text" and not text[fence.end() : following.start()].strip():
            expected = following.group(2)
        out.append((text.count("\n", 0, fence.start()) + 1, fence.group(2), expected))
    return out


BLOCKS = blocks()
TOP_BLOCKS = [block for block in blocks(TOP_README) if "from mcp" not in block[1]]


@pytest.fixture
def sdk_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDKs' clients, answered from the recorded streams."""
    import anthropic
    import httpx2
    import openai

    bodies = {recording.format: recording.body for recording in recordings() if recording.expected is not None}

    def route(request: Any) -> Any:
        path = request.url.path
        format = (
            "openai_chat"
            if path.endswith("/chat/completions")
            else "openai_responses"
            if path.endswith("/responses")
            else "anthropic"
        )
        return handler(bodies[format])(request)

    def factory(cls: Any, client: Any) -> Any:
        def make(**options: Any) -> Any:
            # (pydantic-ai passes its own `http_client`, and `None`s for the rest.)
            options["api_key"] = options.get("api_key") or "x"
            options["base_url"] = options.get("base_url") or "http://test"
            options["http_client"] = client(transport=httpx2.MockTransport(route))
            return cls(**options)

        return make

    monkeypatch.setattr(openai, "OpenAI", factory(openai.OpenAI, httpx2.Client))
    monkeypatch.setattr(openai, "AsyncOpenAI", factory(openai.AsyncOpenAI, httpx2.AsyncClient))
    monkeypatch.setattr(anthropic, "Anthropic", factory(anthropic.Anthropic, httpx2.Client))
    monkeypatch.setattr(anthropic, "AsyncAnthropic", factory(anthropic.AsyncAnthropic, httpx2.AsyncClient))


def test_the_top_readme_has_a_python_example_with_its_output():
    assert any(expected is not None for _, _, expected in TOP_BLOCKS)


def test_the_readme_has_an_example_per_sdk():
    code = "\n".join(block for _, block, _ in BLOCKS)
    for call in ["chat.completions.create(", "responses.create(", "messages.create(", "atool_calls(", "AsyncAnthropic"]:
        assert call in code
    assert sum(expected is not None for _, _, expected in BLOCKS) >= 3


@pytest.mark.parametrize("line, code, expected", BLOCKS, ids=[f"README.md:{line}" for line, _, _ in BLOCKS])
def test_readme_example_runs(
    sdk_clients: None, monkeypatch: pytest.MonkeyPatch, line: int, code: str, expected: Optional[str]
) -> None:
    if '"openai:' in code:
        # The pydantic-ai example makes an OpenAI agent. As the README says,
        # building it without OPENAI_API_KEY fails, naming the variable; with
        # one it builds (it never calls out).
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        with pytest.raises(Exception, match="OPENAI_API_KEY"):
            run(f"README.md:{line}", code, expected)
        monkeypatch.setenv("OPENAI_API_KEY", "x")
    run(f"README.md:{line}", code, expected)


@pytest.mark.parametrize("line, code, expected", TOP_BLOCKS, ids=[f"../README.md:{line}" for line, _, _ in TOP_BLOCKS])
def test_top_readme_example_runs(line: int, code: str, expected: Optional[str]) -> None:
    run(f"../README.md:{line}", code, expected)


def run(name: str, code: str, expected: Optional[str]) -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, name, "exec"), {"__name__": "readme"})
    if expected is not None:
        assert printed.getvalue() == expected
    else:
        assert "Traceback" not in printed.getvalue()


# The SDK examples, as a reader runs them offline (issue 41): each written to a
# file and run by examples/replay_server.py, which serves the same recordings
# over HTTP and points the real SDKs at itself; the output must be the README's.
SDK_BLOCKS = [block for block in BLOCKS if block[2] is not None and re.search(r"\b(Async)?(OpenAI|Anthropic)\(\)", block[1])]
REPLAY_SERVER = TOP_README.parent / "examples" / "replay_server.py"


def test_every_sdk_example_is_run_against_the_replay_server():
    assert len(SDK_BLOCKS) >= 4


@pytest.mark.parametrize("line, code, expected", SDK_BLOCKS, ids=[f"README.md:{line}" for line, _, _ in SDK_BLOCKS])
def test_sdk_example_runs_offline_against_the_replay_server(tmp_path: Path, line: int, code: str, expected: str) -> None:
    import os
    import subprocess
    import sys

    example = tmp_path / "example.py"
    example.write_text(code, encoding="utf-8")
    # No key and no base URL of the caller's may leak in: the server sets them.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "ANTHROPIC_"))}
    done = subprocess.run(
        [sys.executable, str(REPLAY_SERVER), "--", sys.executable, str(example)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
