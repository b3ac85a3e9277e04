"""``python -m argmend [FILE]``: repair the JSON in FILE (stdin when absent
or ``-``) and print it, as ``argmend repair`` does, for a machine that has the
Python package and not the binary.

- ``--tool NAME`` and ``--schema FILE`` make the repair tool-aware
  (:func:`argmend.normalize_tool_args`);
- ``--fixes`` writes each fix and doubt to stderr, one JSON object a line;
- the exit status is 0 when JSON came out, 1 when the input held none (the
  reason on stderr), 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import json
import sys

import argmend


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m argmend",
        description="Repair the broken JSON in FILE (stdin when absent) and print it.",
    )
    parser.add_argument("file", nargs="?", default="-", metavar="FILE", help="the input (default: stdin)")
    parser.add_argument("--tool", metavar="NAME", help="the tool the arguments are for (read_file, write_file, …)")
    parser.add_argument("--schema", metavar="FILE", help="the tool's JSON Schema (a whole tool definition also works)")
    parser.add_argument("--fixes", action="store_true", help="write each fix and doubt to stderr as JSON lines")
    parser.add_argument("--version", action="version", version=f"argmend {argmend.__version__}")
    args = parser.parse_args(argv)

    if args.file == "-":
        raw = sys.stdin.buffer.read()
    else:
        try:
            with open(args.file, "rb") as file:
                raw = file.read()
        except OSError as error:
            parser.exit(2, f"python -m argmend: cannot open {args.file!r}: {error.strerror}\n")
    if args.tool is not None or args.schema is not None:
        schema = None
        if args.schema is not None:
            try:
                with open(args.schema, encoding="utf-8") as file:
                    schema = json.load(file)
            except (OSError, ValueError) as error:
                parser.exit(2, f"python -m argmend: cannot read the schema {args.schema!r}: {error}\n")
        result = argmend.normalize_tool_args(args.tool or "", raw, schema)
        text = result.json
    else:
        result = argmend.repair(raw)
        text = result.text
    if args.fixes:
        # The lines `argmend repair --fixes` writes.
        compact = {"separators": (",", ":")}
        for fix in result.fixes:
            print(json.dumps({"kind": fix.kind, "offset": fix.offset}, **compact), file=sys.stderr)
        for doubt in result.doubts:
            print(json.dumps({"doubt": doubt.kind, "offset": doubt.offset, "reason": doubt.reason}, **compact), file=sys.stderr)
    if result.verdict == "not_json":
        print(f"python -m argmend: not JSON: {result.reason or 'no JSON value found'}", file=sys.stderr)
        return 1
    # A terminal gets the last line ended; a pipe gets the JSON alone, as from `argmend repair`.
    sys.stdout.write(text + ("\n" if sys.stdout.isatty() else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
