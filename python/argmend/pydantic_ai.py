"""A pydantic-ai capability that repairs malformed tool arguments with argmend.

``RepairToolArguments`` keeps the contract of Pydantic AI Harness's capability
of the same name, which runs json_repair:

- valid JSON (what ``json.loads`` reads, even past argmend's depth limit) and already-parsed
  arguments pass through unchanged, and emit no span;
- a repair that fails, or raises anything at all (a lone surrogate in the
  arguments, a limit crossed), leaves the original arguments to normal
  validation and retry;
- each repair attempt emits one ``repair_tool_arguments`` span that never
  contains argument content.

and does more with what it knows:

- it gives argmend the tool's name and its ``parameters_json_schema``, so the
  repair is schema-guided: a lone value where the schema wants a list becomes
  a list, a quoted number where it wants an integer becomes the integer, and
  code with unescaped quotes in a declared string field stays whole;
- the span carries the verdict, the strategy and the fix kinds (no content);
- ``refuse_truncated=True`` asks the model to send the call again when its
  arguments were cut off, instead of running the tool with half a file;
- ``retry_doubtful=True`` asks the model to send the call again when argmend
  had to choose between two readings of the arguments (a quote that may end
  its string or belong to it, text after the arguments that may have been
  part of them), naming the place: the field, the byte offset and the text
  around it.

>>> from pydantic_ai import Agent
>>> from argmend.pydantic_ai import RepairToolArguments
>>> agent = Agent("test", capabilities=[RepairToolArguments(refuse_truncated=True)])

It works the same on streamed responses: pydantic-ai assembles the argument
deltas and the hook sees the whole string.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability, RawToolArgs
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import AgentDepsT, ToolDefinition

import argmend

__all__ = ["RepairToolArguments"]

SPAN_NAME = "repair_tool_arguments"

# What the model is asked to do about each kind of doubt.
ADVICE = {
    "quote_as_text": 'Escape every quote inside a string value as \\".',
    "quote_as_end": 'Escape every quote inside a string value as \\".',
    "early_close": 'Put nothing after the closing brace of the arguments, and escape every quote inside a string value as \\".',
    "newline_boundary": "Separate the members of an object with commas.",
    "duplicate_key": "Give each key once.",
    "closers_matched": "Close every object and array once, innermost first.",
    "opener_supplied": "Open every object with { and every array with [.",
    "restart": "Write the arguments once, as one JSON object, without starting again.",
    "markdown_escape": "Write a backslash in a string value as \\\\, and no Markdown escapes.",
    "comma_boundary": "Close every string value with its quote, and separate members with a comma.",
}
DEFAULT_ADVICE = "Write that part as strict JSON."
# Bytes of input shown on each side of a doubt.
EXCERPT = 32
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(kw_only=True)
class RepairToolArguments(AbstractCapability[AgentDepsT]):
    """Repair malformed JSON tool arguments with argmend, guided by each tool's schema.

    Args:
        use_schema: give argmend the tool's ``parameters_json_schema`` (default
            ``True``). Without it only the tool's name guides the repair. A
            schema argmend cannot take (nested deeper than 512 levels) is left
            out of the repair, and its span names the error in
            ``argmend.schema_error``; validation still applies it.
        refuse_truncated: when the arguments were cut off (a string, object or
            number closed by argmend because the input ended), raise
            ``ModelRetry`` so the model sends the whole call again, instead of
            running the tool with what arrived (default ``False``).
        drop_unknown_keys: drop keys the schema does not declare, where it does
            not allow other keys (default ``False``: validation decides).
        coerce_valid_json: also apply the schema to arguments that are valid
            JSON (``{"paths": "a.py"}`` where the schema wants a list becomes
            ``{"paths": ["a.py"]}``). Off by default: valid JSON passes through
            unchanged, as the harness capability promises.
        retry_doubtful: when the repair had to choose between two readings of
            the arguments (``Normalized.doubts``: a quote that may end its
            string or belong to it, text after the arguments that may have
            been part of them), raise ``ModelRetry`` naming the place (the
            field's path when it can be found, the byte offset and the text
            around it) and the reason, so the model sends the call again
            written unambiguously, instead of running the tool on a guess
            (default ``False``: the tool runs with argmend's reading).
    """

    use_schema: bool = True
    refuse_truncated: bool = False
    retry_doubtful: bool = False
    drop_unknown_keys: bool = False
    coerce_valid_json: bool = False
    # Per tool name: the schema, its argmend Tool, and why the schema was left out (if it was).
    _tools: dict[str, tuple[Any, argmend.Tool, str | None]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _tool(self, tool_def: ToolDefinition) -> tuple[argmend.Tool, str | None]:
        """The argmend ``Tool`` for ``tool_def``, built once per name and schema,
        and why its schema was left out, if it was.

        A schema argmend cannot read (nested deeper than it takes, not JSON)
        is left out: the tool's name alone guides the repair, as with
        ``use_schema=False``, and validation still applies the schema.
        """
        schema = tool_def.parameters_json_schema if self.use_schema else None
        cached = self._tools.get(tool_def.name)
        if cached is not None and (cached[0] is schema or cached[0] == schema):
            return cached[1], cached[2]
        unread = None
        try:
            tool = argmend.Tool(tool_def.name, schema, drop_unknown_keys=self.drop_unknown_keys)
        except Exception as error:
            if schema is None:
                raise
            unread = type(error).__name__
            tool = argmend.Tool(tool_def.name, None, drop_unknown_keys=self.drop_unknown_keys)
        self._tools[tool_def.name] = (schema, tool, unread)
        return tool, unread

    async def before_tool_validate(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
    ) -> RawToolArgs:
        """Repair malformed JSON arguments before normal tool schema validation.

        Never raises but to ask for the call again (``refuse_truncated``,
        ``retry_doubtful``): whatever goes wrong in the repair leaves the
        original arguments to validation and retry, as the harness does.
        """
        if not isinstance(args, str):
            return args
        # Valid JSON is what `json.loads` reads, as in the harness: NaN, lone
        # surrogates and nesting deeper than argmend's limit included.
        try:
            json.loads(args)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            pass
        else:
            return self._coerced(ctx, tool_def, args) if self.coerce_valid_json else args
        with ctx.tracer.start_as_current_span(SPAN_NAME) as span:
            try:
                tool, unread = self._tool(tool_def)
                normalized = tool.normalize(args)
            except Exception as error:
                # A limit crossed, input argmend cannot take (a lone surrogate),
                # or anything else: leave the arguments to validation and retry.
                span.set_attribute("argmend.outcome", "failed")
                span.set_attribute("argmend.error", type(error).__name__)
                return args
            return self._repaired(span, tool_def, args, normalized, unread)

    def _coerced(self, ctx: RunContext[AgentDepsT], tool_def: ToolDefinition, args: str) -> RawToolArgs:
        """Valid JSON with ``coerce_valid_json``: the schema applied, with a
        span when that changed anything; unchanged when it could not be."""
        try:
            tool, unread = self._tool(tool_def)
            normalized = tool.normalize(args)
        except Exception:
            return args
        if normalized.verdict == "valid":
            return args
        with ctx.tracer.start_as_current_span(SPAN_NAME) as span:
            return self._repaired(span, tool_def, args, normalized, unread)

    def _repaired(
        self, span: Any, tool_def: ToolDefinition, args: str, normalized: argmend.Normalized, unread: str | None
    ) -> RawToolArgs:
        """The arguments to validate after a repair, recorded on ``span``;
        raises ``ModelRetry`` when the repair is refused."""
        if unread is not None:
            span.set_attribute("argmend.schema_error", unread)
        fixes = normalized.fixes
        doubts = normalized.doubts
        span.set_attributes(
            {
                "gen_ai.tool.name": tool_def.name,
                "argmend.verdict": normalized.verdict,
                # 1 to 7, as the CLI and `serve` report it (0: not JSON),
                # and its name for a reader of the trace.
                "argmend.strategy": normalized.strategy or 0,
                "argmend.strategy_name": normalized.strategy_name or "",
                "argmend.fix_kinds": sorted({fix.kind for fix in fixes}),
                "argmend.fix_count": len(fixes),
                "argmend.doubt_kinds": sorted({doubt.kind for doubt in doubts}),
                "argmend.doubt_count": len(doubts),
                "argmend.violation_count": len(normalized.violations),
            }
        )
        if normalized.verdict == "not_json":
            span.set_attribute("argmend.outcome", "failed")
            return args
        cut = next((fix for fix in fixes if fix.truncation), None)
        if self.refuse_truncated and cut is not None:
            span.set_attribute("argmend.outcome", "refused_truncated")
            raise ModelRetry(
                f"The arguments of this `{tool_def.name}` call were cut off "
                f"(they end at byte {len(args.encode(errors='surrogatepass'))}, inside a value). "
                "Send the complete call again."
            )
        if self.retry_doubtful and doubts:
            span.set_attribute("argmend.outcome", "refused_doubtful")
            raise ModelRetry(self._doubt_message(tool_def, args, doubts))
        span.set_attribute("argmend.outcome", "repaired")
        return normalized.json

    def _doubt_message(self, tool_def: ToolDefinition, args: str, doubts: list[argmend.Doubt]) -> str:
        """What the model reads when its call is refused for a doubt: the
        first doubt's place (field, byte offset, the text around it), why, and
        what to do; the others are counted."""
        doubt = doubts[0]
        raw = args.encode(errors="surrogatepass")
        path = self._path_at(tool_def, raw, doubt.offset)
        field = f" (in `{path}`)" if path else ""
        before = raw[max(0, doubt.offset - EXCERPT) : doubt.offset].decode(errors="ignore")
        after = raw[doubt.offset : doubt.offset + EXCERPT].decode(errors="ignore")
        more = len(doubts) - 1
        others = f" There {'is' if more == 1 else 'are'} {more} more such place{'' if more == 1 else 's'}." if more else ""
        return (
            f"The arguments of this `{tool_def.name}` call can be read two ways at byte "
            f"{doubt.offset}{field}: {doubt.reason}.{others} The text there, with <<HERE>> at that byte:\n"
            f"{before}<<HERE>>{after}\n"
            f"Send the call again, written so it can be read only one way. "
            f"{ADVICE.get(doubt.kind, DEFAULT_ADVICE)}"
        )

    def _path_at(self, tool_def: ToolDefinition, raw: bytes, offset: int) -> str | None:
        """The path of the field being read at byte `offset`
        (``content``, ``edits[0].new_string``): the last value in the engine's
        snapshot of the arguments up to that byte, read with the same schema.
        ``None`` at the top level, or when it cannot be told."""
        schema = tool_def.parameters_json_schema if self.use_schema else None
        try:
            repairer = argmend.Repairer(schema=schema)
            repairer.feed(raw[:offset])
            value = repairer.snapshot_value()
        except Exception:
            return None
        path = ""
        while True:
            if isinstance(value, dict) and value:
                key = next(reversed(value))
                path += f".{key}" if IDENTIFIER.match(key) else f"[{json.dumps(key)}]"
                value = value[key]
            elif isinstance(value, list) and value:
                path += f"[{len(value) - 1}]"
                value = value[-1]
            else:
                return path.removeprefix(".") or None
