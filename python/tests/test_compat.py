"""`import argmend as json_repair`: json_repair's API, its signatures and
return shapes, checked beside json_repair itself."""

from __future__ import annotations

import inspect
import io
import json

import json_repair
import pytest

import argmend


def test_the_signatures_accept_everything_json_repair_accepts():
    for name in ["repair_json", "loads", "load", "from_file"]:
        theirs = inspect.signature(getattr(json_repair, name)).parameters
        ours = inspect.signature(getattr(argmend, name)).parameters
        assert list(ours)[: len(theirs)] == list(theirs), name
        for parameter, spec in theirs.items():
            if spec.default is not inspect.Parameter.empty:
                assert ours[parameter].default == spec.default, (name, parameter)


# Inputs where the two libraries agree on the value (compared parsed).
AGREED = [
    "{'a': 1, 'b': 'two'}",
    '{"a": 1, "b": [1, 2, 3,],}',
    "{a: 1, b: 2}",
    '{"a": True, "b": False, "c": None}',
    '{"a": 1, // comment\n "b": 2}',
    '```json\n{"a": 1}\n```',
    'Sure! Here is the JSON: {"name": "Ann", "age": 31}',
    '{"items": [1, 2, 3',
    '{"text": "unterminated',
    '[1, 2, 3, 4]',
    '{"nested": {"deeper": {"deepest": [true, null]}}}',
    '{"path": "src/app.py", "content": "x = 1"}',
]


@pytest.mark.parametrize("text", AGREED)
def test_same_values_as_json_repair_on_everyday_breakage(text):
    assert json.loads(argmend.repair_json(text)) == json.loads(json_repair.repair_json(text))
    assert argmend.repair_json(text, return_objects=True) == json_repair.repair_json(text, return_objects=True)
    assert argmend.loads(text) == json_repair.loads(text)


def test_return_shapes():
    assert isinstance(argmend.repair_json("{'a': 1}"), str)
    assert argmend.repair_json("{'a': 1}", return_objects=True) == {"a": 1}
    value, log = argmend.repair_json("{'a': 1", logging=True)
    assert value == {"a": 1}
    assert [entry["kind"] for entry in log] == ["replaced_quotes", "closed_container"]
    assert set(log[0]) == {"text", "context", "kind", "offset"}
    assert log[0]["context"] == "{'a': 1" and log[0]["offset"] == 1
    value, log = argmend.repair_json('{"a": 1}', logging=True)
    assert (value, log) == ({"a": 1}, [])  # json_repair: an empty log when nothing was repaired
    value, log = argmend.loads("[1,", logging=True)
    assert value == [1] and log[0]["kind"] == "removed_dangling_comma"


def test_nothing_found_is_the_empty_string_as_in_json_repair():
    for empty in ["", "   ", "// just a comment"]:
        assert argmend.repair_json(empty) == json_repair.repair_json(empty) == ""
        assert argmend.repair_json(empty, return_objects=True) == ""
        assert argmend.loads(empty) == ""
    assert argmend.repair_json() == ""


def test_ensure_ascii_defaults_to_true_as_in_json_dumps():
    text = "{'name': 'José 😀'}"
    assert argmend.repair_json(text) == json_repair.repair_json(text) == '{"name": "Jos\\u00e9 \\ud83d\\ude00"}'
    assert argmend.repair_json(text, ensure_ascii=False) == '{"name": "José 😀"}'
    # Valid JSON with non-ASCII is escaped too.
    assert argmend.repair_json('["é"]') == '["\\u00e9"]'
    assert argmend.repair_json('["é"]', ensure_ascii=False) == '["é"]'


def test_json_dumps_arguments_decide_the_layout():
    for kwargs in [{"indent": 2}, {"separators": (",", ":")}, {"sort_keys": True, "indent": 1}]:
        text = "{'b': 1, 'a': [1, 2,], 'c': 'ü'}"
        assert argmend.repair_json(text, **kwargs) == json_repair.repair_json(text, **kwargs)


def test_the_text_keeps_the_input_layout_without_dumps_arguments():
    # json_repair re-serializes; argmend only mends, so valid input comes back byte for byte.
    text = '{"a":1,"b":[1,2]}'
    assert argmend.repair_json(text) == text
    assert json_repair.repair_json(text) == '{"a": 1, "b": [1, 2]}'


def test_code_in_strings_is_kept_exactly_where_json_repair_changes_it():
    # A string's final newline, and an escaped backslash before an escaped quote.
    call = '{"path": "a.py", "content": "print(\\"a\\\\\\"b\\")\\n"}'
    broken = call[:-1] + ",}"
    truth = json.loads(call)
    assert argmend.repair_json(broken, return_objects=True) == truth
    assert json_repair.repair_json(broken, return_objects=True) != truth
    # Code with unescaped quotes: argmend keeps it whole.
    code = '{"path": "a.py", "content": "print("hello, world")\\nx = {"a": 1}\\n"}'
    assert argmend.loads(code) == {"path": "a.py", "content": 'print("hello, world")\nx = {"a": 1}\n'}


def test_strict_raises_instead_of_repairing():
    assert argmend.repair_json('{"a": 1}', strict=True) == '{"a": 1}'
    with pytest.raises(ValueError, match="strict mode: the input is not valid JSON: removed_comma at byte 7"):
        argmend.repair_json('{"a": 1,}', strict=True)
    with pytest.raises(ValueError, match="no JSON value"):
        argmend.loads("", strict=True)


def test_argument_checks_match_json_repair():
    with pytest.raises(ValueError, match="schema and strict cannot be used together"):
        argmend.repair_json("{}", schema={"type": "object"}, strict=True)
    with pytest.raises(ValueError, match="salvage"):
        argmend.repair_json("{}", schema_repair_mode="salvage")
    with pytest.raises(ValueError, match="schema_repair_mode must be"):
        argmend.repair_json("{}", schema={}, schema_repair_mode="other")
    with pytest.raises(TypeError, match="json_str must be str or bytes"):
        argmend.repair_json(12)


def test_schema_guides_the_repair():
    schema = {"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "integer"}}}}
    assert argmend.repair_json("{ids: '7'}", schema=schema, return_objects=True) == {"ids": [7]}
    from pydantic import BaseModel

    class Model(BaseModel):
        count: int

    assert argmend.loads("{count: '3',}", schema=Model) == {"count": 3}


def test_load_and_from_file(tmp_path):
    assert argmend.load(io.StringIO("{'a': [1, 2")) == {"a": [1, 2]}
    assert argmend.load(io.BytesIO(b"[1, 2,]")) == [1, 2]
    path = tmp_path / "broken.json"
    path.write_text("{name: 'Ann', age: 31,}", encoding="utf-8")
    assert argmend.from_file(path) == {"name": "Ann", "age": 31}
    assert argmend.from_file(str(path), logging=True)[0] == {"name": "Ann", "age": 31}
    assert argmend.repair_json(json_fd=io.StringIO("[1,")) == "[1]"
    with pytest.raises(FileNotFoundError):
        argmend.from_file(tmp_path / "missing.json")


def test_big_integers_stay_exact():
    assert argmend.loads("[18446744073709551617,]") == [18446744073709551617]


def test_deep_input_is_a_value_error_not_a_crash():
    with pytest.raises(ValueError):
        argmend.repair_json("[" * 100_000)


def test_import_as_json_repair():
    import argmend as json_repair_alias

    assert json_repair_alias.repair_json("{'a': 1}", skip_json_loads=True, ensure_ascii=False) == '{"a": 1}'
