"""Mended tool calls from an ``anthropic`` SDK stream.

:func:`tool_calls` iterates the stream that
``client.messages.create(..., stream=True)`` returns (or the
``client.messages.stream()`` helper's), pushes every event into an
:class:`argmend.adapters.Anthropic` adapter and yields its events; at the
end of the stream it yields what ``finish()`` reports. Pass the request's
``tools`` and each call is mended with its tool's ``input_schema``.
:func:`atool_calls` is the same for ``AsyncAnthropic``'s ``AsyncStream``.

The ``anthropic`` package is not imported here: any iterable of its events
(or of the same events as dicts) will do.

>>> from argmend.anthropic import tool_calls
>>> events = [
...     {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}},
...     {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'}},
...     {"type": "content_block_stop", "index": 0},
...     {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
...     {"type": "message_stop"},
... ]
>>> [(e.id, e.end.args, e.end.complete) for e in tool_calls(events) if type(e).__name__ == "CallDone"]
[('toolu_1', {'city': 'Paris'}, True)]
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Iterable, Iterator

from .adapters import Anthropic, Event

__all__ = ["atool_calls", "tool_calls"]


def tool_calls(
    stream: Iterable[Any],
    tools: Any = None,
    *,
    schema: Any = None,
    drop_unknown_keys: bool = False,
) -> Iterator[Event]:
    """Yield the adapter events of an ``anthropic`` Messages stream.

    ``tools`` is the request's ``tools`` list; ``schema`` and
    ``drop_unknown_keys`` are as for :class:`argmend.adapters.Anthropic`. An
    exception from the stream (the SDK raises on an ``error`` event)
    propagates; the calls it left open are then not reported.
    """
    adapter = Anthropic(tools, schema=schema, drop_unknown_keys=drop_unknown_keys)
    for event in stream:
        yield from adapter.push(event)
    yield from adapter.finish()


async def atool_calls(
    stream: AsyncIterable[Any],
    tools: Any = None,
    *,
    schema: Any = None,
    drop_unknown_keys: bool = False,
) -> AsyncIterator[Event]:
    """:func:`tool_calls` for ``AsyncAnthropic``'s ``AsyncStream`` (any async iterable)."""
    adapter = Anthropic(tools, schema=schema, drop_unknown_keys=drop_unknown_keys)
    async for event in stream:
        for out in adapter.push(event):
            yield out
    for out in adapter.finish():
        yield out
