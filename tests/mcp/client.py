"""End-to-end check of `argmend mcp` with the official MCP Python SDK.

Run by tests/mcp.rs as: python client.py ARGMEND_BINARY WORKSPACE
It starts the server over stdio, walks through a session and asserts on
every answer; on success it prints one JSON line per step (the test reads
them back), on failure it raises (non-zero exit, traceback on stderr).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


def structured(result):
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)


def step(name, **fields):
    print(json.dumps({"step": name, **fields}), flush=True)


async def main(binary, workspace):
    params = StdioServerParameters(command=binary, args=["mcp", "--workspace", workspace])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            server = init.server_info if hasattr(init, "server_info") else init.serverInfo
            assert server.name == "argmend", server
            step("initialize", server=server.name, version=server.version)

            listed = await session.list_tools()
            names = sorted(tool.name for tool in listed.tools)
            assert names == ["diff", "json", "repair"], names
            by_name = {tool.name: tool for tool in listed.tools}
            schema = getattr(by_name["json"], "input_schema", None) or by_name["json"].inputSchema
            verbs = schema["properties"]["cmd"]["enum"]
            assert "get" in verbs and "query" in verbs, verbs
            step("list_tools", tools=names, json_verbs=verbs)

            # A well-formed call to json.
            got = await session.call_tool(
                "json", {"cmd": "get", "args": {"file": "data.json", "path": "items[1].name"}}
            )
            assert not got.is_error if hasattr(got, "is_error") else not got.isError, text_of(got)
            assert text_of(got) == '"beta"\n', text_of(got)
            step("json_get", output=text_of(got))

            # A patch whose context does not match: refused, and says why.
            patch = "@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 2\n"
            refused = await session.call_tool(
                "diff", {"cmd": "apply", "args": {"file": "app.py", "patch": patch}}
            )
            is_error = refused.is_error if hasattr(refused, "is_error") else refused.isError
            assert is_error, text_of(refused)
            assert "refused" in text_of(refused), text_of(refused)
            step("diff_refused", output=text_of(refused))

            # Malformed arguments: `args` arrives as broken JSON in a string.
            mended = await session.call_tool(
                "json", {"cmd": "get", "args": "{file: 'data.json', path: 'items[0].id',}"}
            )
            assert text_of(mended) == "1\n", text_of(mended)
            fixes = structured(mended)["repairs"]["fixes"]
            assert fixes, structured(mended)
            step("json_malformed", output=text_of(mended), fixes=[f["kind"] for f in fixes])

            # Malformed arguments: the whole call as a command line in `cmd`.
            line = await session.call_tool("json", {"cmd": "keys --file data.json"})
            assert "items" in text_of(line), text_of(line)
            step("json_command_line", output=text_of(line))

            # repair: mend a text, then a bare value for a known tool.
            fixed = await session.call_tool("repair", {"text": "{name: 'Ada', tags: ['x',],}"})
            assert json.loads(text_of(fixed)) == {"name": "Ada", "tags": ["x"]}, text_of(fixed)
            assert structured(fixed)["verdict"] == "repaired", structured(fixed)
            step("repair", output=text_of(fixed))
            wrapped = await session.call_tool("repair", {"text": "main.go", "tool": "read_file"})
            assert json.loads(text_of(wrapped)) == {"file": "main.go"}, text_of(wrapped)
            step("repair_tool", output=text_of(wrapped))

            # A path outside the workspace is refused as a tool error.
            outside = await session.call_tool(
                "json", {"cmd": "keys", "args": {"file": "/etc/passwd"}}
            )
            assert outside.is_error if hasattr(outside, "is_error") else outside.isError
            step("outside_workspace", output=text_of(outside))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
