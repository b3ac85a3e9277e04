"""argmend's own Python API: repair, Repairer, normalize_tool_args, Tool."""

from __future__ import annotations

import doctest
import json
import random
import threading

import pytest

import argmend
import argmend.pydantic_ai


def test_docstring_examples_run():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    objects = [getattr(argmend, name) for name in argmend.__all__] + [argmend]
    examples = 0
    for obj in objects:
        for test in finder.find(obj, obj.__name__ if hasattr(obj, "__name__") else "argmend", globs={}):
            examples += len(test.examples)
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
    assert examples >= 15


def test_repair_reports_text_verdict_and_fixes():
    outcome = argmend.repair("{name: 'John', tags: ['a', 'b',]}")
    assert outcome.text == '{"name": "John", "tags": ["a", "b"]}'
    assert outcome.verdict == "repaired"
    assert [(fix.kind, fix.offset) for fix in outcome.fixes][:2] == [("quoted_key", 1), ("replaced_quotes", 7)]
    assert outcome.value() == {"name": "John", "tags": ["a", "b"]}
    assert outcome.reason is None


def test_verdicts():
    assert argmend.repair('{"a": 1}').verdict == "valid"
    assert argmend.repair('{"a": [1, 2').verdict == "completed"
    assert argmend.repair("[1, 2,]").verdict == "repaired"
    outcome = argmend.repair("   // only a comment\n")
    assert outcome.verdict == "not_json"
    assert outcome.text == ""
    assert outcome.value() is None
    assert "no JSON" in outcome.reason


def test_valid_input_comes_back_as_the_same_object():
    text = '{"a": [1, 2.5e3, "x\\u00e9"], "b": null}'
    assert argmend.repair(text).text is text


def test_bytes_input_and_invalid_utf8():
    assert argmend.repair(b"{'a': 1}").text == '{"a": 1}'
    assert argmend.repair(bytearray(b"[1,]")).text == "[1]"
    outcome = argmend.repair(b'["caf\xe9"]')
    assert outcome.text == '["caf\ufffd"]'
    assert [fix.kind for fix in outcome.fixes] == ["replaced_invalid_utf8"]


def test_big_integers_stay_exact():
    assert argmend.repair("[18446744073709551617, 1e400]").value()[0] == 18446744073709551617
    assert argmend.loads("{a: 123456789012345678901234567890}") == {"a": 123456789012345678901234567890}


def test_type_errors_and_limits():
    for bad in [5, None, ["[1]"], 1.5]:
        with pytest.raises(TypeError, match="must be str or bytes"):
            argmend.repair(bad)
    with pytest.raises(TypeError):
        argmend.Repairer().feed(7)
    with pytest.raises(argmend.Error, match="nesting deeper than 512") as raised:
        argmend.repair("[" * 600)
    assert isinstance(raised.value, ValueError)
    with pytest.raises(argmend.Error, match="deeper than 3"):
        argmend.repair("[[[[1]]]]", max_depth=3)
    with pytest.raises(argmend.Error, match="larger than 4 bytes"):
        argmend.repair("[1, 2, 3]", max_input_bytes=4)
    with pytest.raises(ValueError, match="values must be"):
        argmend.Repairer(values="all")


def test_repairer_commits_as_it_goes_and_finishes_like_one_shot():
    r = argmend.Repairer()
    assert r.feed('{"path": "a.py", "content": "print(1)') == '{"path": "a.py", "content": "print(1)'
    assert r.snapshot() == '{"path": "a.py", "content": "print(1)"}'
    assert r.snapshot_value() == {"path": "a.py", "content": "print(1)"}
    assert r.bytes_fed == 37
    outcome = r.finish()
    assert outcome.text == '{"path": "a.py", "content": "print(1)"}'
    assert outcome.verdict == "completed"
    with pytest.raises(RuntimeError, match="finished"):
        r.feed("x")
    with pytest.raises(RuntimeError, match="finished"):
        r.finish()


def test_repairer_before_any_value():
    r = argmend.Repairer()
    assert r.feed("Sure, here it is: ") == ""
    assert r.snapshot() == ""
    assert r.snapshot_value() is None


CHUNK_INPUTS = [
    "{name: 'Zoë', tags: ['a', 'b',], ok: True, n: -1.5e3, /* c */ s: \"line\\nnext\"}",
    '```json\n{"path": "src/main.rs", "content": "fn main() {\n    println!("hi");\n}\n"}\n```',
    '[1, 2, {"a": "\\ud83d\\ude00 ünïcode 😀", "b": [null, false]}, "tail',
    'Here you go: {"text": "He said "yes", then left", "n": 3}',
]


@pytest.mark.parametrize("text", CHUNK_INPUTS)
def test_any_cut_of_the_bytes_gives_the_same_result(text):
    data = text.encode()
    whole = argmend.repair(data)
    rng = random.Random(7)
    for trial in range(40):
        r = argmend.Repairer()
        committed = ""
        i = 0
        while i < len(data):
            n = 1 if trial == 0 else rng.randint(0, 9)
            committed += r.feed(data[i : i + n])  # bytes cut anywhere, inside characters too
            snapshot = r.snapshot()
            if snapshot:
                json.loads(snapshot)
                assert snapshot.startswith(committed)
            i += n
        outcome = r.finish()
        assert outcome.text == whole.text
        assert outcome.text.startswith(committed)
        assert outcome.verdict == whole.verdict
        assert [(f.kind, f.offset) for f in outcome.fixes] == [(f.kind, f.offset) for f in whole.fixes]


def test_str_chunks_work_too():
    r = argmend.Repairer()
    for piece in ["{'é", "': [1", ", 2"]:
        r.feed(piece)
    assert r.finish().text == '{"é": [1, 2]}'


def test_values_lines_and_array():
    r = argmend.Repairer(values="lines")
    r.feed('{"a": 1} {b: 2}')
    assert r.finish().text == '{"a": 1}\n{"b": 2}'
    r = argmend.Repairer(values="array")
    r.feed("[1] 2 {'a': 3}")
    assert json.loads(r.finish().text) == [[1], 2, {"a": 3}]


def test_repairer_with_fields_keeps_code_whole():
    code = '{"content": "f("a", "b": 1)", "path": "x.py"}'
    r = argmend.Repairer(fields=["path", "content"])
    r.feed(code)
    assert r.finish().value() == {"content": 'f("a", "b": 1)', "path": "x.py"}
    schema = {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}
    r = argmend.Repairer(schema=schema)
    r.feed(code)
    assert r.finish().value() == {"content": 'f("a", "b": 1)', "path": "x.py"}


def test_one_repairer_used_from_two_threads_refuses_rather_than_interleaves():
    r = argmend.Repairer()
    big = '{"a": "' + "x" * 4_000_000 + '"}'
    errors: list[BaseException] = []

    def feed():
        try:
            for _ in range(3):
                r.feed(big)
        except RuntimeError as error:
            errors.append(error)
        except argmend.Error:
            pass

    threads = [threading.Thread(target=feed) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Whatever the scheduling, nothing crashed, and a collision (if one
    # happened) was reported in words.
    assert all("one thread at a time" in str(error) for error in errors)


def test_separate_repairs_run_in_parallel_threads():
    docs = [json.dumps({"i": i, "s": "y" * 200_000}) for i in range(8)]
    broken = [doc[:-2] for doc in docs]  # cut off: the string and the object are closed
    results: dict[int, str] = {}

    def work(i: int):
        results[i] = argmend.repair(broken[i]).text

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i in range(8):
        assert json.loads(results[i])["i"] == i


def test_strategy_is_the_number_the_cli_reports():
    # Issue 28: `.strategy` was the name while the CLI, `serve` and the docs
    # give the number; the name is `.strategy_name`.
    cases = [
        ('{"file":"main.go"}', 1, "strict_parse"),
        ("{'file':'main.go'}", 2, "single_quotes"),
        ('{file: "main.go"}', 3, "unquoted_keys"),
        ("{file: 'main.go'}", 4, "quotes_and_keys"),
        ('{"file":"main.go",}', 5, "trailing_commas"),
        ("main.go", 6, "plain_value"),
        ("{file: main.go}", 7, "bare_literal"),
    ]
    for raw, number, name in cases:
        n = argmend.normalize_tool_args("read_file", raw)
        assert (n.strategy, n.strategy_name) == (number, name), raw
        assert repr(n).startswith(f"Normalized(verdict='{n.verdict}', strategy={number} ({name}),"), repr(n)
    n = argmend.normalize_tool_args("zzz", "plain words")
    assert (n.verdict, n.strategy, n.strategy_name) == ("not_json", None, None)


def test_normalize_tool_args_uses_the_tool_and_the_schema():
    n = argmend.normalize_tool_args("read_file", "main.go")
    assert (n.json, n.verdict, n.strategy, n.strategy_name) == ('{"file":"main.go"}', "repaired", 6, "plain_value")
    assert n.value() == {"file": "main.go"}
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}, "tags": {"type": "array"}},
        "required": ["path"],
    }
    n = argmend.normalize_tool_args("list", "{'path': 'src', 'limit': '10', 'tags': 'x'}", schema)
    assert n.value() == {"path": "src", "limit": 10, "tags": ["x"]}
    assert {fix.kind for fix in n.fixes} >= {"coerced_number", "wrapped_in_array"}
    n = argmend.normalize_tool_args("list", '{"limit": 1}', schema)
    assert [(v.path, "path" in v.message) for v in n.violations] == [("$", True)]
    n = argmend.normalize_tool_args("@coder", "read --file 'main.go")
    assert n.verdict == "not_json" and n.json == "read --file 'main.go" and "single quote" in n.reason
    assert n.value() is None


def test_schema_forms():
    from pydantic import BaseModel

    class Args(BaseModel):
        count: int

    for schema in [Args, '{"type": "object", "properties": {"count": {"type": "integer"}}}']:
        assert argmend.normalize_tool_args("t", "{count: '3'}", schema).value() == {"count": 3}
    with pytest.raises(TypeError, match="schema must be"):
        argmend.normalize_tool_args("t", "{}", 42)
    with pytest.raises(ValueError, match="schema is not JSON"):
        argmend.normalize_tool_args("t", "{}", "{nope")


def test_tool_objects():
    tool = argmend.Tool("write_file", {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}})
    assert tool.name == "write_file"
    n = tool.normalize('{"path": "a.py", "content": "print("hi", "you")"}')
    assert n.value() == {"path": "a.py", "content": 'print("hi", "you")'}
    dropping = argmend.Tool("t", {"type": "object", "properties": {"a": {}}}, drop_unknown_keys=True)
    assert dropping.normalize("{a: 1, b: 2}").value() == {"a": 1}
    assert "write_file" in repr(tool)


DOUBTFUL = '{"a": "x"} note: "done"'  # the text after the value holds a quote: did it end too early?
EARLY_CLOSE = "a closer after a quote ended the value early, and the text after it was dropped"


def test_doubts_of_outcome_normalized_and_a_stream():
    outcome = argmend.repair(DOUBTFUL)
    assert outcome.value() == {"a": "x"}
    assert outcome.verdict == "repaired"  # a doubt does not change the verdict
    assert [(d.kind, d.offset, d.reason) for d in outcome.doubts] == [("early_close", 11, EARLY_CLOSE)]
    assert isinstance(outcome.doubts[0], argmend.Doubt)
    assert outcome.doubts[0] == argmend.repair(DOUBTFUL.encode()).doubts[0]
    assert repr(outcome.doubts[0]) == "Doubt(kind='early_close', offset=11)"
    for clean in ['{"a": "x"}', "{a: 'x',}", "[1, 2"]:
        assert argmend.repair(clean).doubts == [], clean

    # Offsets are bytes of the input, as the fixes' are.
    shifted = argmend.repair("  " + DOUBTFUL)
    assert [(d.kind, d.offset) for d in shifted.doubts] == [("early_close", 13)]

    # The end of a stream, however it was cut.
    r = argmend.Repairer()
    for piece in [DOUBTFUL[:12], DOUBTFUL[12:]]:
        r.feed(piece)
    assert [(d.kind, d.offset) for d in r.finish().doubts] == [("early_close", 11)]

    raw = '{"file": "a.go"} note: "done"'
    for normalized in [argmend.normalize_tool_args("read_file", raw), argmend.Tool("read_file").normalize(raw)]:
        assert normalized.value() == {"file": "a.go"}
        assert normalized.verdict == "repaired"
        assert [(d.kind, d.offset, d.reason) for d in normalized.doubts] == [("early_close", 17, EARLY_CLOSE)]
    assert argmend.normalize_tool_args("read_file", "main.go").doubts == []
    assert argmend.normalize_tool_args("read_file", '{"file": "a.go"}').doubts == []


def test_reprs_are_short():
    outcome = argmend.repair("[" + "1," * 100_000 + "1]")
    assert len(repr(outcome)) < 120
    assert repr(argmend.repair("[1,]").fixes[0]) == 'Fix(kind="removed_comma", offset=2)'.replace('"', "'")


def test_the_readme_example_says_what_it_does():
    """The first Python block of python/README.md's API section, run line by
    line: a line whose comment is a Python literal must evaluate to it."""
    import ast
    import pathlib

    readme = (pathlib.Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## The API") :]
    block = section[section.index("```python\n") + len("```python\n") :]
    block = block[: block.index("```")]
    scope: dict = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  # ")
        if not code.strip():
            continue
        comment = comment.split("  (")[0].strip()
        try:
            expected = ast.literal_eval(comment)
        except (ValueError, SyntaxError):
            exec(code, scope)
            continue
        if "=" in code and not code.lstrip().startswith(("[", "(")) and "==" not in code:
            exec(code, scope)
            name = code.split("=")[0].strip()
            assert scope[name] == expected, line
        else:
            assert eval(code, scope) == expected, line
        checked += 1
    assert checked >= 6


def test_a_dropped_second_value_takes_the_whitespace_before_it():
    # Issue 41: it left `'{"a": 1} '`.
    assert argmend.repair_json('{"a": 1} {"b": 2}') == '{"a": 1}'
    assert argmend.repair('{"a": 1}\n\n[2]').text == '{"a": 1}'
    # Whitespace after the only value is the input's own: kept, as in valid JSON.
    assert argmend.repair('{"a": 1}\n').text == '{"a": 1}\n'


def test_the_package_has_a_version():
    import re
    from pathlib import Path

    # pyproject.toml's `version = "…"` (read by line: tomllib is 3.11+, the package 3.10+).
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert argmend.__version__ == re.search(r'^version = "([^"]+)"$', pyproject, re.M).group(1)


def run_module(*args: str, stdin: bytes = b"") -> "subprocess.CompletedProcess[bytes]":
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "argmend", *args], input=stdin, capture_output=True, timeout=60)


def test_python_dash_m_argmend_repairs_stdin_and_files(tmp_path):
    done = run_module(stdin=b"{'a': 1, b: [1, 2,]} and more")
    assert (done.returncode, done.stdout) == (0, b'{"a": 1, "b": [1, 2]}')
    path = tmp_path / "call.txt"
    path.write_text("main.go")
    done = run_module("--tool", "read_file", "--fixes", str(path))
    assert (done.returncode, done.stdout) == (0, b'{"file":"main.go"}')
    assert done.stderr.decode().splitlines() == ['{"kind":"wrapped_value","offset":0}']
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object", "properties": {"n": {"type": "integer"}}}')
    done = run_module("--schema", str(schema), stdin=b"{n: '5'}")
    assert (done.returncode, json.loads(done.stdout)) == (0, {"n": 5})


def test_python_dash_m_argmend_fails_as_the_cli_does():
    done = run_module(stdin=b"   ")
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.startswith(b"python -m argmend: not JSON: ")
    assert run_module("--no-such-flag").returncode == 2
    assert run_module("/no/such/file").returncode == 2
    done = run_module("--version")
    assert (done.returncode, done.stdout.decode().strip()) == (0, f"argmend {argmend.__version__}")
    assert b"usage: python -m argmend" in run_module("--help").stdout


def test_the_benchmark_prints_its_help_without_running():
    import subprocess
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "bench.py"
    done = subprocess.run([sys.executable, str(bench), "--help"], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"usage: python python/bench.py")
    assert b"--batches" in done.stdout and b"| what |" not in done.stdout
