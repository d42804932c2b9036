#!/usr/bin/env python3
# PreToolUse, matcher "Bash": rewrites "sleep" commands to a short one (updatedInput).
import json, sys
data = json.load(sys.stdin)
ti = data["tool_input"]
if ti.get("command", "").startswith("sleep"):
    ti["command"] = "echo rewritten-by-hook"
    ti["timeout"] = 5000
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": ti}}))
