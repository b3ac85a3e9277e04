"""The official OpenAI Python SDK against `argmend proxy` (tests/proxy.rs).

    python client.py BASE_URL CASES.json

Runs each case (a request: model, tools, stream) as a user of the SDK would
and prints one JSON line per case: the content, each tool call (id, name,
arguments as the SDK assembled them, argmend's extension field), the finish
reason, or the error the SDK raised. A streamed case is read twice: by
iterating the chunks and joining the deltas by hand, and through the SDK's
own accumulator (`chat.completions.stream(...).get_final_completion()`).
"""

import json
import sys

import openai


def extra(model, key):
    """A field the SDK's model does not declare (kept, as pydantic allows)."""
    return (getattr(model, "model_extra", None) or {}).get(key)


def streamed(client, request):
    content, calls, finish = "", {}, None
    for chunk in client.chat.completions.create(stream=True, **request):
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                content += delta.content
            for call in delta.tool_calls or []:
                entry = calls.setdefault(
                    call.index, {"id": None, "name": "", "arguments": "", "argmend": None}
                )
                if call.id:
                    entry["id"] = call.id
                if call.function is not None:
                    entry["name"] += call.function.name or ""
                    entry["arguments"] += call.function.arguments or ""
                if extra(call, "argmend") is not None:
                    entry["argmend"] = extra(call, "argmend")
            if choice.finish_reason:
                finish = choice.finish_reason
    calls = [calls[index] for index in sorted(calls)]
    # The SDK's own accumulation of the same stream.
    with client.chat.completions.stream(**request) as stream:
        for _ in stream:
            pass
        try:
            final = stream.get_final_completion()
        except openai.LengthFinishReasonError as error:
            # Raised on `length` (the SDK will not parse a cut answer); the
            # accumulated completion comes with it.
            final = error.completion
    sdk = [
        {"name": call.function.name, "arguments": call.function.arguments}
        for call in final.choices[0].message.tool_calls or []
    ]
    return {"content": content, "calls": calls, "finish_reason": finish, "sdk_calls": sdk}


def whole(client, request):
    response = client.chat.completions.create(**request)
    message = response.choices[0].message
    calls = [
        {
            "id": call.id,
            "name": call.function.name,
            "arguments": call.function.arguments,
            "argmend": extra(call, "argmend"),
        }
        for call in message.tool_calls or []
    ]
    return {
        "content": message.content or "",
        "calls": calls,
        "finish_reason": response.choices[0].finish_reason,
    }


def main():
    base_url, cases = sys.argv[1], sys.argv[2]
    client = openai.OpenAI(base_url=base_url, api_key="sk-argmend-test", max_retries=0, timeout=60)
    with open(cases, encoding="utf-8") as file:
        cases = json.load(file)
    for case in cases:
        request = {
            "model": case["model"],
            "messages": [{"role": "user", "content": "go"}],
        }
        if case["tools"]:
            request["tools"] = case["tools"]
        out = {"name": case["name"], "stream": case["stream"]}
        try:
            out.update(streamed(client, request) if case["stream"] else whole(client, request))
        except openai.APIStatusError as error:
            out["error"] = {"status": error.status_code, "message": str(error.message)}
        print(json.dumps(out), flush=True)
    print("python client: done", file=sys.stderr)


main()
