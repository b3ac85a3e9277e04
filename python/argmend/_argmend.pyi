"""Type stubs of the Rust extension module (see the docstrings at runtime)."""

from os import PathLike
from typing import IO, Any, ClassVar, Iterable, Literal, Optional, Sequence, Tuple, Union, overload

Verdict = Literal["valid", "repaired", "completed", "not_json"]
Strategy = Literal[1, 2, 3, 4, 5, 6, 7]
StrategyName = Literal[
    "strict_parse", "single_quotes", "unquoted_keys", "quotes_and_keys", "trailing_commas", "plain_value", "bare_literal"
]
FieldEventKind = Literal["started", "delta", "field_done"]
ValueKind = Literal["object", "array", "string", "number", "bool", "null"]
Cut = Literal["max_tokens", "length", "content_filter", "incomplete", "failed", "error", "stream_ended", "no_arguments"]
JSONValue = Any
LogEntry = dict  # {"text": str, "context": str, "kind": str, "offset": int}

class Error(ValueError):
    """A hard limit was crossed: nesting deeper than max_depth, or more input than max_input_bytes."""

class Fix:
    @property
    def kind(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def truncation(self) -> bool: ...

class Doubt:
    """A choice between readings that the input could not settle; the verdict does not change."""

    @property
    def kind(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def reason(self) -> str: ...

class Violation:
    @property
    def path(self) -> str: ...
    @property
    def message(self) -> str: ...

class Outcome:
    @property
    def text(self) -> str: ...
    @property
    def verdict(self) -> Verdict: ...
    @property
    def fixes(self) -> list[Fix]: ...
    @property
    def doubts(self) -> list[Doubt]: ...
    @property
    def reason(self) -> Optional[str]: ...
    def value(self) -> JSONValue: ...

class Normalized:
    @property
    def json(self) -> str: ...
    @property
    def strategy(self) -> Optional[Strategy]:
        """Which of the seven strategies the input needed, 1 to 7 (as the CLI reports it); None when not JSON."""
    @property
    def strategy_name(self) -> Optional[StrategyName]:
        """The same strategy by name ("strict_parse", …); None when not JSON."""
    @property
    def verdict(self) -> Verdict: ...
    @property
    def fixes(self) -> list[Fix]: ...
    @property
    def doubts(self) -> list[Doubt]: ...
    @property
    def violations(self) -> list[Violation]: ...
    @property
    def reason(self) -> Optional[str]: ...
    def value(self) -> JSONValue: ...

class Repairer:
    def __init__(
        self,
        *,
        max_depth: int = 512,
        values: Literal["first", "lines", "array"] = "first",
        max_input_bytes: Optional[int] = None,
        schema: Any = None,
        fields: Optional[Sequence[str]] = None,
    ) -> None: ...
    def feed(self, chunk: Union[str, bytes, bytearray]) -> str: ...
    def snapshot(self) -> str: ...
    def snapshot_value(self) -> JSONValue: ...
    @property
    def bytes_fed(self) -> int: ...
    def finish(self) -> Outcome: ...

class Tool:
    def __init__(self, name: str, schema: Any = None, *, drop_unknown_keys: bool = False) -> None: ...
    @property
    def name(self) -> str: ...
    def normalize(self, raw: Union[str, bytes, bytearray]) -> Normalized: ...

class FieldEvent:
    """A field of a call's arguments started, grew (a string delta) or is final."""

    @property
    def kind(self) -> FieldEventKind: ...
    @property
    def path(self) -> str: ...
    @property
    def text(self) -> Optional[str]: ...
    @property
    def value(self) -> JSONValue: ...
    @property
    def value_kind(self) -> Optional[ValueKind]: ...
    def to_dict(self) -> dict[str, Any]: ...

class ArgsUpdate:
    @property
    def committed(self) -> str: ...
    @property
    def events(self) -> list[FieldEvent]: ...

class CallEnd:
    """The end of one call: the mended arguments and whether they arrived whole."""

    @property
    def name(self) -> str: ...
    @property
    def args(self) -> JSONValue: ...
    @property
    def text(self) -> str: ...
    @property
    def verdict(self) -> Verdict: ...
    @property
    def strategy(self) -> Optional[Strategy]:
        """Which of the seven strategies the arguments needed, 1 to 7; None when not JSON."""
    @property
    def strategy_name(self) -> Optional[StrategyName]:
        """The same strategy by name ("strict_parse", …); None when not JSON."""
    @property
    def complete(self) -> bool: ...
    @property
    def cut(self) -> Optional[Union[Cut, str]]: ...
    @property
    def fixes(self) -> list[Fix]: ...
    @property
    def doubts(self) -> list[Doubt]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def events(self) -> list[FieldEvent]: ...
    def to_dict(self) -> dict[str, Any]: ...

class ToolCallStream:
    def __init__(
        self,
        name: str,
        *,
        schema: Any = None,
        tools: Any = None,
        drop_unknown_keys: bool = False,
        max_depth: int = 512,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    def feed(self, chunk: Union[str, bytes, bytearray]) -> ArgsUpdate: ...
    def snapshot(self) -> str: ...
    def value(self) -> JSONValue: ...
    @property
    def bytes_fed(self) -> int: ...
    def finish(self) -> CallEnd: ...

# argmend.adapters (defined here, re-exported there).

class CallStarted:
    __match_args__: ClassVar[Tuple[str, str, str]]
    @property
    def call(self) -> int: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> JSONValue: ...
    def to_dict(self) -> dict[str, Any]: ...

class Field:
    __match_args__: ClassVar[Tuple[str, str, str, str]]
    @property
    def call(self) -> int: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def name(self) -> str: ...
    @property
    def event(self) -> FieldEvent: ...
    @property
    def value(self) -> JSONValue: ...
    def to_dict(self) -> dict[str, Any]: ...

class CallDone:
    __match_args__: ClassVar[Tuple[str, str, str, str]]
    @property
    def call(self) -> int: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def name(self) -> str: ...
    @property
    def end(self) -> CallEnd: ...
    @property
    def value(self) -> JSONValue: ...
    def to_dict(self) -> dict[str, Any]: ...

class Skipped:
    __match_args__: ClassVar[Tuple[str, str, str]]
    @property
    def kind(self) -> str: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def name(self) -> Optional[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Text:
    __match_args__: ClassVar[Tuple[str]]
    @property
    def text(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

AdapterEvent = Union[CallStarted, Field, CallDone, Skipped]
ParserEvent = Union[Text, CallStarted, Field, CallDone, Skipped]

class CallParser:
    """Tool calls in a model's streamed text, in every open-weight format."""

    def __init__(
        self,
        format: Optional[str] = None,
        tools: Any = None,
        *,
        schema: Any = None,
        drop_unknown_keys: bool = False,
        max_depth: int = 512,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...
    @staticmethod
    def formats() -> list[str]: ...
    @property
    def format(self) -> Optional[str]: ...
    def feed(self, chunk: Union[str, bytes, bytearray]) -> list[ParserEvent]: ...
    def finish(self) -> list[ParserEvent]: ...
    def value(self, call: int) -> JSONValue: ...
    def calls(self) -> int: ...
    def name(self, call: int) -> Optional[str]: ...
SDKEvent = Any  # an openai or anthropic stream event (a pydantic model), a dict, or JSON text

class OpenAIChat:
    """OpenAI Chat Completions chunks."""

    def __init__(
        self,
        tools: Any = None,
        *,
        schema: Any = None,
        drop_unknown_keys: bool = False,
        max_depth: int = 512,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...
    def push(self, event: SDKEvent) -> list[AdapterEvent]: ...
    def finish(self) -> list[AdapterEvent]: ...
    def value(self, call: int) -> JSONValue: ...
    def snapshot(self, call: int) -> Optional[str]: ...
    def calls(self) -> int: ...
    def id(self, call: int) -> Optional[str]: ...
    def name(self, call: int) -> Optional[str]: ...

class OpenAIResponses:
    """OpenAI Responses API events."""

    def __init__(
        self,
        tools: Any = None,
        *,
        schema: Any = None,
        drop_unknown_keys: bool = False,
        max_depth: int = 512,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...
    def push(self, event: SDKEvent) -> list[AdapterEvent]: ...
    def finish(self) -> list[AdapterEvent]: ...
    def value(self, call: int) -> JSONValue: ...
    def snapshot(self, call: int) -> Optional[str]: ...
    def calls(self) -> int: ...
    def id(self, call: int) -> Optional[str]: ...
    def name(self, call: int) -> Optional[str]: ...

class Anthropic:
    """Anthropic Messages events."""

    def __init__(
        self,
        tools: Any = None,
        *,
        schema: Any = None,
        drop_unknown_keys: bool = False,
        max_depth: int = 512,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...
    def push(self, event: SDKEvent) -> list[AdapterEvent]: ...
    def finish(self) -> list[AdapterEvent]: ...
    def value(self, call: int) -> JSONValue: ...
    def snapshot(self, call: int) -> Optional[str]: ...
    def calls(self) -> int: ...
    def id(self, call: int) -> Optional[str]: ...
    def name(self, call: int) -> Optional[str]: ...

__version__: str

def repair(s: Union[str, bytes, bytearray], *, max_depth: int = 512, max_input_bytes: Optional[int] = None) -> Outcome: ...
def normalize_tool_args(
    tool: str, raw: Union[str, bytes, bytearray], schema: Any = None, *, drop_unknown_keys: bool = False
) -> Normalized: ...
@overload
def repair_many(
    texts: Iterable[Union[str, bytes, bytearray]],
    *,
    tool: None = None,
    schema: None = None,
    threads: Optional[int] = None,
    max_depth: int = 512,
    max_input_bytes: Optional[int] = None,
    drop_unknown_keys: bool = False,
    return_exceptions: Literal[False] = False,
) -> list[Outcome]: ...
@overload
def repair_many(
    texts: Iterable[Union[str, bytes, bytearray]],
    *,
    tool: None = None,
    schema: None = None,
    threads: Optional[int] = None,
    max_depth: int = 512,
    max_input_bytes: Optional[int] = None,
    drop_unknown_keys: bool = False,
    return_exceptions: bool,
) -> list[Union[Outcome, Error]]: ...
@overload
def repair_many(
    texts: Iterable[Union[str, bytes, bytearray]],
    *,
    tool: Union[str, Tool, None] = None,
    schema: Any = None,
    threads: Optional[int] = None,
    max_depth: int = 512,
    max_input_bytes: Optional[int] = None,
    drop_unknown_keys: bool = False,
    return_exceptions: bool = False,
) -> list[Normalized]: ...
def normalize_many(
    tool: Union[str, Tool],
    texts: Iterable[Union[str, bytes, bytearray]],
    schema: Any = None,
    *,
    threads: Optional[int] = None,
    drop_unknown_keys: bool = False,
) -> list[Normalized]: ...
def repair_arrow_buffers(
    data: bytes,
    offsets: bytes,
    wide: bool,
    start: int,
    length: int,
    validity: Optional[bytes],
    *,
    tool: Union[str, Tool, None] = None,
    schema: Any = None,
    threads: Optional[int] = None,
    max_depth: int = 512,
    max_input_bytes: Optional[int] = None,
    drop_unknown_keys: bool = False,
) -> dict[str, Any]: ...
@overload
def repair_json(
    json_str: Union[str, bytes] = "",
    return_objects: Literal[False] = False,
    skip_json_loads: bool = False,
    logging: Literal[False] = False,
    json_fd: Optional[IO[Any]] = None,
    chunk_length: int = 0,
    stream_stable: bool = False,
    strict: bool = False,
    schema: Any = None,
    schema_repair_mode: Literal["standard", "salvage"] = "standard",
    **json_dumps_args: Any,
) -> str: ...
@overload
def repair_json(
    json_str: Union[str, bytes] = "",
    return_objects: Literal[True] = True,
    skip_json_loads: bool = False,
    logging: Literal[False] = False,
    json_fd: Optional[IO[Any]] = None,
    chunk_length: int = 0,
    stream_stable: bool = False,
    strict: bool = False,
    schema: Any = None,
    schema_repair_mode: Literal["standard", "salvage"] = "standard",
    **json_dumps_args: Any,
) -> JSONValue: ...
@overload
def repair_json(
    json_str: Union[str, bytes] = "",
    return_objects: bool = False,
    skip_json_loads: bool = False,
    logging: Literal[True] = True,
    json_fd: Optional[IO[Any]] = None,
    chunk_length: int = 0,
    stream_stable: bool = False,
    strict: bool = False,
    schema: Any = None,
    schema_repair_mode: Literal["standard", "salvage"] = "standard",
    **json_dumps_args: Any,
) -> Tuple[JSONValue, list[LogEntry]]: ...
def loads(
    json_str: Union[str, bytes],
    skip_json_loads: bool = False,
    logging: bool = False,
    stream_stable: bool = False,
    strict: bool = False,
    schema: Any = None,
    schema_repair_mode: Literal["standard", "salvage"] = "standard",
) -> JSONValue: ...
def load(
    fd: IO[Any],
    skip_json_loads: bool = False,
    logging: bool = False,
    chunk_length: int = 0,
    strict: bool = False,
    schema: Any = None,
    schema_repair_mode: Literal["standard", "salvage"] = "standard",
) -> JSONValue: ...
def from_file(
    filename: Union[str, PathLike[str]],
    skip_json_loads: bool = False,
    logging: bool = False,
    chunk_length: int = 0,
    strict: bool = False,
    schema: Any = None,
    schema_repair_mode: Literal["standard", "salvage"] = "standard",
) -> JSONValue: ...
