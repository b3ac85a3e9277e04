#!/usr/bin/env python3
"""A local stand-in for the OpenAI and Anthropic APIs that answers every
streamed request with one of argmend's own recordings, so the SDK examples
of python/README.md and js/README.md run offline, with no key, and print
what those READMEs show.

    python3 examples/replay_server.py -- python3 my_example.py   # run one program against it
    python3 examples/replay_server.py                             # or serve until Ctrl-C

With a command after `--`, the server starts on a free port, the command
runs with the SDKs pointed at it (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`,
and placeholder keys `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, which both
official SDKs read, in Python and in JavaScript), and the server stops when
it exits, with its exit status. Without one it serves on `--port` (8788) and
prints those variables to export.

What it answers (the request's body is not read: model, messages and tools
make no difference):

- `POST …/chat/completions`: corpus/model_streams/openai_chat.jsonl
- `POST …/responses`: corpus/model_streams/openai_responses.jsonl
- `POST …/messages`: corpus/model_streams/anthropic.jsonl

each as the API sends a stream: one `data:` line per recorded event, an
`event: <type>` line before each for the Responses and Anthropic APIs, and
`data: [DONE]` after a Chat stream. The recordings are argmend's own (four
calls: code full of quotes, a Python-style call, escapes and non-ASCII
text, and a call cut off by the token limit). Only Python's standard
library: no package, no network.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

STREAMS = Path(__file__).resolve().parent.parent / "corpus" / "model_streams"

# The end of a request's path, and the recording that answers it.
ROUTES = {
    "/chat/completions": "openai_chat",
    "/responses": "openai_responses",
    "/messages": "anthropic",
}


def body(format: str) -> bytes:
    """The recording `format` as the HTTP body of a server-sent event stream."""
    out = []
    for line in (STREAMS / f"{format}.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        if format == "openai_chat":
            out.append(f"data: {line}\n\n")
        else:
            out.append(f"event: {json.loads(line)['type']}\ndata: {line}\n\n")
    if format == "openai_chat":
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


class Replay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
        # Read the request's body, unused, so the connection stays in step.
        self.rfile.read(int(self.headers.get("content-length") or 0))
        path = self.path.split("?")[0].rstrip("/")
        format = next((f for end, f in ROUTES.items() if path.endswith(end)), None)
        if format is None:
            return self.answer(404, "application/json", json.dumps({"error": f"no recording for {path}"}).encode())
        self.answer(200, "text/event-stream", body(format))

    def answer(self, status: int, kind: str, content: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, format: str, *args: object) -> None:
        if self.server.verbose:  # type: ignore[attr-defined]
            super().log_message(format, *args)


def environment(url: str) -> dict[str, str]:
    """The variables that point both SDKs at the server at `url`."""
    return {
        "OPENAI_BASE_URL": f"{url}/v1",
        "ANTHROPIC_BASE_URL": url,
        "OPENAI_API_KEY": "replay",
        "ANTHROPIC_API_KEY": "replay",
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(
        prog="python3 examples/replay_server.py",
        description="Serve argmend's recorded model streams as the OpenAI and Anthropic APIs do.",
        usage="%(prog)s [--port PORT] [--log] [-- COMMAND ...]",
    )
    parser.add_argument("--port", type=int, default=None, help="the port (default 8788; a free one with a command)")
    parser.add_argument("--log", action="store_true", help="print each request")
    args = parser.parse_args(own)
    port = args.port if args.port is not None else (0 if command else 8788)
    server = ThreadingHTTPServer(("127.0.0.1", port), Replay)
    server.verbose = args.log  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{server.server_address[1]}"
    variables = environment(url)
    if not command:
        print(f"replaying argmend's recorded streams at {url}; point the SDKs at it with:")
        print("export " + " ".join(f"{name}={value}" for name, value in variables.items()))
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        return 0
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        return subprocess.run(command, env={**os.environ, **variables}).returncode
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
