#!/usr/bin/env python3
"""A picoclaw process hook for tackle's tests: it speaks picoclaw's
protocol (JSON-RPC 2.0 over stdio, hook.hello, hook.before_tool,
hook.approve_tool, hook.after_tool, hook.before_llm, hook.after_llm,
hook.runtime_event notifications) and answers what each request carries.

A request carries its directive under "pico", by stage name: in the tool
call's arguments (before_tool, approve_tool, after_tool), in the last
message's content (before_llm) or the reply's content (after_llm), read
as JSON. A directive is {"answer": RESULT}, {"error": MESSAGE} or
{"do": "crash" | "hang"}. Without one, interceptors answer continue and
approve_tool approves.

Environment: PICO_RECORD, a file to which every line received is
appended; PICO_HELLO, the hello's result as JSON (default {"ok": true}).
"""
import json
import os
import sys
import time

RECORD = os.environ.get("PICO_RECORD", "")
HELLO = json.loads(os.environ.get("PICO_HELLO", '{"ok": true, "name": "scripted"}'))


def record(line):
    if RECORD:
        with open(RECORD, "a", encoding="utf-8") as f:
            f.write(line.rstrip("\n") + "\n")


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def from_text(text, stage):
    try:
        d = json.loads(text)
    except (TypeError, ValueError):
        return None
    if isinstance(d, dict):
        return (d.get("pico") or {}).get(stage)
    return None


def directive(method, params):
    stage = method.removeprefix("hook.")
    if stage in ("before_tool", "approve_tool", "after_tool"):
        return ((params.get("arguments") or {}).get("pico") or {}).get(stage)
    if stage == "before_llm":
        msgs = params.get("messages") or []
        return from_text(msgs[-1].get("content") if msgs else None, stage)
    if stage == "after_llm":
        return from_text((params.get("response") or {}).get("content"), stage)
    return None


for line in sys.stdin:
    record(line)
    msg = json.loads(line)
    method, params, mid = msg.get("method"), msg.get("params") or {}, msg.get("id")
    if not mid:
        continue
    if method == "hook.hello":
        send({"jsonrpc": "2.0", "id": mid, "result": HELLO})
        continue
    d = directive(method, params) or {}
    if d.get("do") == "crash":
        sys.exit(3)
    if d.get("do") == "hang":
        time.sleep(3600)
    if "error" in d:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32000, "message": d["error"]}})
        continue
    if "answer" in d:
        result = d["answer"]
    elif method == "hook.approve_tool":
        result = {"approved": True}
    else:
        result = {"action": "continue"}
    send({"jsonrpc": "2.0", "id": mid, "result": result})
