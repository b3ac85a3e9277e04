"""argmend: streaming repair of broken JSON in LLM tool-call arguments.

A drop-in for json_repair (``import argmend as json_repair``): the same
``repair_json``, ``loads``, ``load`` and ``from_file``, backed by argmend's
Rust engine, which keeps code in string values exact and is 150 to 2,000
times faster (``python/bench.py``). Beside them, argmend's own API:

- :func:`repair` returns an :class:`Outcome` (text, verdict, fixes, and the
  doubts: places the input could be read two ways);
- :class:`Repairer` repairs a stream chunk by chunk, with a valid-JSON
  snapshot after every chunk;
- :func:`normalize_tool_args` and :class:`Tool` use the tool's name and JSON
  Schema (a lone value where the schema wants a list, a quoted number where it
  wants an integer, code with unescaped quotes in a declared string field);
- :mod:`argmend.pydantic_ai` has ``RepairToolArguments``, a pydantic-ai
  capability.

>>> import argmend
>>> argmend.repair_json("{'a': 1, 'b': [1, 2,]}")
'{"a": 1, "b": [1, 2]}'
"""

from ._argmend import (
    Doubt,
    Error,
    Fix,
    Normalized,
    Outcome,
    Repairer,
    Tool,
    Violation,
    from_file,
    load,
    loads,
    normalize_tool_args,
    repair,
    repair_json,
)

__all__ = [
    "Doubt",
    "Error",
    "Fix",
    "Normalized",
    "Outcome",
    "Repairer",
    "Tool",
    "Violation",
    "from_file",
    "load",
    "loads",
    "normalize_tool_args",
    "repair",
    "repair_json",
]
