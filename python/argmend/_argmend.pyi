"""Type stubs of the Rust extension module (see the docstrings at runtime)."""

from os import PathLike
from typing import IO, Any, Literal, Optional, Sequence, Tuple, Union, overload

Verdict = Literal["valid", "repaired", "completed", "not_json"]
JSONValue = Any
LogEntry = dict  # {"text": str, "context": str, "kind": str, "offset": int}

class Error(ValueError):
    """A hard limit was crossed: nesting deeper than max_depth, or more input than max_input_bytes."""

class Fix:
    @property
    def kind(self) -> str: ...
    @property
    def offset(self) -> int: ...

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
    def strategy(self) -> Optional[str]: ...
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

def repair(s: Union[str, bytes, bytearray], *, max_depth: int = 512, max_input_bytes: Optional[int] = None) -> Outcome: ...
def normalize_tool_args(
    tool: str, raw: Union[str, bytes, bytearray], schema: Any = None, *, drop_unknown_keys: bool = False
) -> Normalized: ...
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
