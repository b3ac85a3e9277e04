"""Repair a column of tool calls held in Apache Arrow, with no Python object per row.

``repair_arrow(array)`` takes a ``pyarrow`` string array (or chunked array,
or anything ``pyarrow.array`` reads, such as a pandas string Series) and
returns a ``pyarrow.Table`` with one row per input row:

- ``text`` (string): the repaired JSON text; with ``tool``/``schema``, the
  normalized arguments (the raw input when the verdict is ``not_json``);
  null where the input was null or a limit was crossed;
- ``verdict`` (dictionary of ``VERDICTS``): ``valid``, ``repaired``,
  ``completed``, ``not_json``, or ``error`` where a limit was crossed;
- ``fixes`` and ``doubts`` (int32): how many of each;
- ``fix_kinds`` and ``doubt_kinds`` (list of string): their kinds, in input
  order, so ``pyarrow.compute.value_counts`` over the flattened list counts
  faults across a dataset;
- ``reason`` (string): why there is no JSON, or which limit was crossed;
- with ``tool`` or ``schema`` also ``strategy`` (int8, 1 to 7) and
  ``violations`` (int32).

The rows are repaired with the GIL released, spread over ``threads`` threads
(default: one per core), exactly as :func:`argmend.repair_many` repairs them.
pyarrow is an optional dependency (``pip install 'argmend[arrow]'``); this
module imports it when first used.

>>> import pyarrow as pa
>>> from argmend.arrow import repair_arrow
>>> table = repair_arrow(pa.array(["{a: 1}", '{"b": 2}', None, "  "]))
>>> table.column("text").to_pylist()
['{"a": 1}', '{"b": 2}', None, '']
>>> table.column("verdict").to_pylist()
['repaired', 'valid', None, 'not_json']
>>> table.column("fix_kinds").to_pylist()[0]
['quoted_key']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ._argmend import repair_arrow_buffers

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow

__all__ = ["VERDICTS", "repair_arrow"]

#: The values of the ``verdict`` column, in the order of its dictionary.
VERDICTS = ("valid", "repaired", "completed", "not_json", "error")


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as error:  # pragma: no cover - the extra is installed in the tests
        raise ImportError(
            "argmend.arrow needs pyarrow: pip install 'argmend[arrow]' (or pyarrow itself)"
        ) from error
    return pyarrow


def repair_arrow(
    array: Any,
    *,
    tool: Any = None,
    schema: Any = None,
    threads: Optional[int] = None,
    max_depth: int = 512,
    max_input_bytes: Optional[int] = None,
    drop_unknown_keys: bool = False,
) -> "pyarrow.Table":
    """Repair (or, with ``tool``/``schema``, normalize) every row of ``array``.

    ``array`` is a ``pyarrow`` array or chunked array of ``string``,
    ``large_string`` or ``string_view``, or anything ``pyarrow.array``
    accepts. A chunked array gives a table with the same chunks. The options
    are those of :func:`argmend.repair_many`; a crossed limit never raises
    here: that row's verdict is ``"error"`` and ``reason`` says which limit.
    """
    pa = _pyarrow()
    if not isinstance(array, (pa.Array, pa.ChunkedArray)):
        array = pa.array(array, type=None if _is_arrow_backed(array) else pa.string())
    options = dict(
        tool=tool,
        schema=schema,
        threads=threads,
        max_depth=max_depth,
        max_input_bytes=max_input_bytes,
        drop_unknown_keys=drop_unknown_keys,
    )
    normalize = tool is not None or schema is not None
    if isinstance(array, pa.ChunkedArray):
        chunks = array.chunks or [pa.array([], type=pa.string())]
        return pa.concat_tables([_repair_chunk(pa, chunk, normalize, options) for chunk in chunks])
    return _repair_chunk(pa, array, normalize, options)


def _is_arrow_backed(obj: Any) -> bool:
    """Whether ``obj`` (a pandas Series, say) has an Arrow type of its own."""
    return hasattr(obj, "__arrow_c_array__") or hasattr(obj, "__arrow_c_stream__") or hasattr(obj, "__arrow_array__")


def _repair_chunk(pa: Any, array: Any, normalize: bool, options: dict) -> Any:
    if pa.types.is_string_view(array.type) or pa.types.is_null(array.type):
        array = array.cast(pa.string())
    if pa.types.is_string(array.type):
        wide = False
    elif pa.types.is_large_string(array.type):
        wide = True
    else:
        raise TypeError(f"repair_arrow takes an array of strings, not of {array.type}")
    validity, offsets, data = array.buffers()
    out = repair_arrow_buffers(
        data.to_pybytes() if data is not None else b"",
        offsets.to_pybytes() if offsets is not None else b"\0" * (8 if wide else 4),
        wide,
        array.offset,
        len(array),
        validity.to_pybytes() if validity is not None and array.null_count else None,
        **options,
    )
    n = len(array)
    present = _buffer(pa, out["present"])
    columns = {
        "text": _strings(pa, out, "text"),
        "verdict": pa.DictionaryArray.from_arrays(
            pa.Array.from_buffers(pa.int8(), n, [present, pa.py_buffer(out["verdict"])]),
            pa.array(VERDICTS, type=pa.string()),
        ),
        "fixes": pa.Array.from_buffers(pa.int32(), n, [present, pa.py_buffer(out["fixes"])]),
        "doubts": pa.Array.from_buffers(pa.int32(), n, [present, pa.py_buffer(out["doubts"])]),
        "fix_kinds": _lists(pa, out, "fix_kinds", n, present),
        "doubt_kinds": _lists(pa, out, "doubt_kinds", n, present),
        "reason": _strings(pa, out, "reason"),
    }
    if normalize:
        strategy = _buffer(pa, out["strategy_validity"])
        columns["strategy"] = pa.Array.from_buffers(pa.int8(), n, [strategy, pa.py_buffer(out["strategy"])])
        columns["violations"] = pa.Array.from_buffers(pa.int32(), n, [present, pa.py_buffer(out["violations"])])
    return pa.table(columns)


def _buffer(pa: Any, raw: Optional[bytes]) -> Any:
    return None if raw is None else pa.py_buffer(raw)


def _strings(pa: Any, out: dict, name: str) -> Any:
    kind = pa.large_string() if out[f"{name}_wide"] else pa.string()
    return pa.Array.from_buffers(
        kind,
        out[f"{name}_length"],
        [
            _buffer(pa, out[f"{name}_validity"]),
            pa.py_buffer(out[f"{name}_offsets"]),
            pa.py_buffer(out[f"{name}_data"]),
        ],
    )


def _lists(pa: Any, out: dict, name: str, n: int, present: Any) -> Any:
    items = _strings(pa, out, f"{name}_items")
    kind = pa.large_list(pa.string()) if out[f"{name}_wide"] else pa.list_(pa.string())
    return pa.Array.from_buffers(kind, n, [present, pa.py_buffer(out[f"{name}_offsets"])], children=[items])
