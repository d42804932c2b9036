#!/usr/bin/env python3
# guard.py: a tackle hook server. It asks before `git push`, lets `go test`
# run without asking, and logs every finished tool call to its log file.
import json
import re
import sys

# `go test` with package patterns and harmless flags, nothing else: no `;`,
# `&&`, `|`, `$(...)`, redirect or -exec can hide another command in it.
GO_TEST = re.compile(r"go test( -v| -race| -count=\d+| -run=\w+| \./[\w./-]*)*")


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def decide(params):
    call = params["tool_call"]
    args = call["arguments"] if isinstance(call["arguments"], dict) else {}
    command = args.get("command", "") if call["name"] == "bash" else ""
    if "git push" in command:
        return {"action": "pause", "reason": "pushing needs your approval"}
    if GO_TEST.fullmatch(command):
        return {"action": "approve", "reason": "the tests may run without asking"}
    return {"action": "continue"}


for line in sys.stdin:
    msg = json.loads(line)
    method, params = msg.get("method"), msg.get("params", {})
    if method == "hook.hello":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "version": 1, "name": "guard",
            "modes": ["intercept", "approve", "observe"],
            "events": ["pre_tool_call"],
            "observe": ["tool_call_finished"]}})
    elif method == "hook.pre_tool_call":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": decide(params)})
    elif method == "hook.event":
        print("finished:", params["call"]["name"], params["result"]["status"], file=sys.stderr, flush=True)
    elif method == "hook.shutdown":
        break
    elif "id" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"],
              "error": {"code": -32601, "message": "no such method: " + str(method)}})
