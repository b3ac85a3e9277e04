"""Mended tool calls from an ``openai`` SDK stream, Chat Completions or Responses.

:func:`tool_calls` iterates the stream that
``client.chat.completions.create(..., stream=True)`` or
``client.responses.create(..., stream=True)`` returns (or the events of their
``.stream()`` helpers), tells the two formats apart by the first event that
shows which it is, pushes every event into the matching adapter
(:class:`argmend.adapters.OpenAIChat` or
:class:`argmend.adapters.OpenAIResponses`) and yields the adapter's events;
at the end of the stream it yields what ``finish()`` reports. Pass the
request's ``tools`` and each call is mended with its tool's JSON Schema.
:func:`atool_calls` is the same for ``AsyncOpenAI``'s ``AsyncStream``.

The ``openai`` package is not imported here: any iterable of its events (or
of the same events as dicts) will do.

>>> from argmend.openai import tool_calls
>>> chunks = [
...     {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
...         {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a'}}]}}]},
...     {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
...         {"index": 0, "function": {"arguments": '.py"}'}}]}}]},
...     {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
... ]
>>> [(type(e).__name__, e.value) for e in tool_calls(chunks) if type(e).__name__ != "Field"]
[('CallStarted', {'path': 'a'}), ('CallDone', {'path': 'a.py'})]
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Iterable, Iterator, List, Optional

from .adapters import Event, OpenAIChat, OpenAIResponses

__all__ = ["atool_calls", "tool_calls"]


def _field(event: Any, name: str) -> Any:
    if isinstance(event, dict):
        return event.get(name)
    return getattr(event, name, None)


def _format(event: Any) -> Optional[str]:
    """``"chat"`` for a Chat chunk (or the chat helper's events),
    ``"responses"`` for a Responses event, ``None`` when the event does not
    show which."""
    kind = _field(event, "type")
    if isinstance(kind, str):
        if kind.startswith("response.") or kind == "error":
            return "responses"
        if kind == "chunk" or kind.startswith(("content.", "refusal.", "tool_calls.", "logprobs.")):
            return "chat"
    if _field(event, "object") == "chat.completion.chunk" or _field(event, "choices") is not None:
        return "chat"
    return None


class _Feed:
    """The adapter a stream needs, made once its first telling event shows
    the format; the events before it wait (they carry no call)."""

    def __init__(self, tools: Any, options: dict[str, Any]) -> None:
        self.tools = tools
        self.options = options
        self.adapter: Optional[OpenAIChat | OpenAIResponses] = None
        self.waiting: List[Any] = []

    def push(self, event: Any) -> List[Event]:
        if self.adapter is None:
            form = _format(event)
            if form is None:
                self.waiting.append(event)
                return []
            kind = OpenAIChat if form == "chat" else OpenAIResponses
            self.adapter = kind(self.tools, **self.options)
            out: List[Event] = []
            for earlier in self.waiting:
                out.extend(self.adapter.push(earlier))
            self.waiting.clear()
            out.extend(self.adapter.push(event))
            return out
        return self.adapter.push(event)

    def finish(self) -> List[Event]:
        return [] if self.adapter is None else self.adapter.finish()


def tool_calls(
    stream: Iterable[Any],
    tools: Any = None,
    *,
    schema: Any = None,
    drop_unknown_keys: bool = False,
) -> Iterator[Event]:
    """Yield the adapter events of an ``openai`` stream, Chat or Responses.

    ``tools`` is the request's ``tools`` list (either API's form); ``schema``
    and ``drop_unknown_keys`` are as for :class:`argmend.adapters.OpenAIChat`.
    An exception from the stream propagates; the calls it left open are then
    not reported.
    """
    feed = _Feed(tools, {"schema": schema, "drop_unknown_keys": drop_unknown_keys})
    for event in stream:
        yield from feed.push(event)
    yield from feed.finish()


async def atool_calls(
    stream: AsyncIterable[Any],
    tools: Any = None,
    *,
    schema: Any = None,
    drop_unknown_keys: bool = False,
) -> AsyncIterator[Event]:
    """:func:`tool_calls` for ``AsyncOpenAI``'s ``AsyncStream`` (any async iterable)."""
    feed = _Feed(tools, {"schema": schema, "drop_unknown_keys": drop_unknown_keys})
    async for event in stream:
        for out in feed.push(event):
            yield out
    for out in feed.finish():
        yield out
