"""Adapters from the model APIs' streaming events to mended tool calls.

One class per stream format, each fed the events its SDK yields (the
pydantic models of ``openai`` and ``anthropic``, read with their
``to_dict()``), or the same events as plain dicts or JSON text:

- :class:`OpenAIChat`: Chat Completions chunks
  (``client.chat.completions.create(..., stream=True)``);
- :class:`OpenAIResponses`: Responses API events
  (``client.responses.create(..., stream=True)``);
- :class:`Anthropic`: Messages events
  (``client.messages.create(..., stream=True)`` or ``client.messages.stream()``).

``push(event)`` returns a list of events, often empty; ``finish()`` the last
ones once the stream has ended:

- :class:`CallStarted` ``(call, id, name)``: a tool call began;
- :class:`Field` ``(call, id, name, event)``: a field of its arguments
  started, grew (``event.text``) or is final (``event.value``): an
  :class:`argmend.FieldEvent`;
- :class:`CallDone` ``(call, id, name, end)``: the call ended; ``end`` is an
  :class:`argmend.CallEnd` with the mended ``args`` and ``complete``, which
  is ``False`` when the arguments were cut off, however whole their JSON
  looks, when the stream said so (``end.cut`` says why);
- :class:`Skipped` ``(kind, id, name)``: something that carries a call
  argmend does not handle (a server tool's block, a custom tool's free text,
  argument text after its call ended), reported once so nothing is dropped
  in silence.

``call`` numbers the calls in the order they appeared (0, 1, …). Every event
of a call has a ``value``: the call's value as of the latest event pushed,
read from the adapter when asked (the arguments so far while they stream,
the final ones after the end), so a UI shows ``event.value`` instead of
rebuilding it. Give the request's ``tools`` list to the constructor and each
call is mended with its own tool's JSON Schema.

:class:`argmend.CallParser` gives the same events (and :class:`Text`,
the text outside the calls) for tool calls written in a model's text, in
every open-weight format.

For whole SDK streams, :func:`argmend.openai.tool_calls` and
:func:`argmend.anthropic.tool_calls` do the pushing (and have async twins).

>>> from argmend.adapters import Anthropic, CallDone
>>> stream = Anthropic()
>>> for event in [
...     {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}},
...     {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"path": "a.py", "content": "print(1)'}},
...     {"type": "content_block_stop", "index": 0},
...     {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}},
... ]:
...     for e in stream.push(event):
...         if isinstance(e, CallDone):
...             print(e.name, e.end.args, e.end.complete, e.end.cut)
write_file {'path': 'a.py', 'content': 'print(1)'} False max_tokens
"""

from __future__ import annotations

from typing import Union

from ._argmend import Anthropic, CallDone, CallStarted, Field, OpenAIChat, OpenAIResponses, Skipped, Text

#: What ``push`` and ``finish`` return a list of.
Event = Union[CallStarted, Field, CallDone, Skipped]

#: What :class:`argmend.CallParser`'s ``feed`` and ``finish`` return a list
#: of: the adapters' events, and the text outside the calls.
ParserEvent = Union[Text, CallStarted, Field, CallDone, Skipped]

#: Any of the adapters.
Adapter = Union[OpenAIChat, OpenAIResponses, Anthropic]

__all__ = [
    "Adapter",
    "Anthropic",
    "CallDone",
    "CallStarted",
    "Event",
    "Field",
    "OpenAIChat",
    "OpenAIResponses",
    "ParserEvent",
    "Skipped",
    "Text",
]
