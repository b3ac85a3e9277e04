"""argmend: streaming repair of broken JSON in LLM tool-call arguments.

A drop-in for json_repair (``import argmend as json_repair``): the same
``repair_json``, ``loads``, ``load`` and ``from_file``, backed by argmend's
Rust engine, which keeps code in string values exact and is 150 to 2,000
times faster (``python/bench.py``). Beside them, argmend's own API:

- :func:`repair` returns an :class:`Outcome` (text, verdict, fixes, and the
  doubts: places the input could be read two ways);
- :func:`repair_many` and :func:`normalize_many` answer a whole batch with
  the GIL released, spread over every core (datasets of recorded calls);
  :func:`argmend.arrow.repair_arrow` does the same for a pyarrow column,
  with no Python object per row;
- :class:`Repairer` repairs a stream chunk by chunk, with a valid-JSON
  snapshot after every chunk;
- :func:`normalize_tool_args` and :class:`Tool` use the tool's name and JSON
  Schema (a lone value where the schema wants a list, a quoted number where it
  wants an integer, code with unescaped quotes in a declared string field);
- :class:`ToolCallStream` mends one tool call's arguments as they stream:
  after each fragment the committed text, the :class:`FieldEvent` list (a
  field started, grew, is final) and the value so far; at the end a
  :class:`CallEnd` that says whether the call arrived whole;
- :class:`CallParser` finds the tool calls a model writes in its text, in
  every open-weight format (``CallParser(format="qwen3_coder")``,
  ``"kimi_k2"``, ``"gpt_oss"``, ``"pythonic"``, …, or told by the first
  marker), and gives the adapters' events with the text around them;
- :mod:`argmend.adapters` has one adapter per model API stream format
  (``OpenAIChat``, ``OpenAIResponses``, ``Anthropic``), fed the official SDKs'
  stream events, which keeps parallel calls apart and reads the stream's own
  stop reasons; :func:`argmend.openai.tool_calls` and
  :func:`argmend.anthropic.tool_calls` (and their async twins
  ``atool_calls``) run one over a whole SDK stream. Neither module imports
  the SDK;
- :mod:`argmend.pydantic_ai` has ``RepairToolArguments``, a pydantic-ai
  capability.

``python -m argmend [FILE]`` repairs a file from the shell, as
``argmend repair`` does; ``argmend.__version__`` is the package's version.

>>> import argmend
>>> argmend.repair_json("{'a': 1, 'b': [1, 2,]}")
'{"a": 1, "b": [1, 2]}'
"""

from ._argmend import (
    ArgsUpdate,
    CallEnd,
    CallParser,
    Doubt,
    Error,
    FieldEvent,
    Fix,
    Normalized,
    Outcome,
    Repairer,
    Tool,
    ToolCallStream,
    Violation,
    __version__,
    from_file,
    load,
    loads,
    normalize_many,
    normalize_tool_args,
    repair,
    repair_json,
    repair_many,
)

__all__ = [
    "__version__",
    "ArgsUpdate",
    "CallEnd",
    "CallParser",
    "Doubt",
    "Error",
    "FieldEvent",
    "Fix",
    "Normalized",
    "Outcome",
    "Repairer",
    "Tool",
    "ToolCallStream",
    "Violation",
    "from_file",
    "load",
    "loads",
    "normalize_many",
    "normalize_tool_args",
    "repair",
    "repair_json",
    "repair_many",
]
