#!/usr/bin/env python3
# PreToolUse, matcher "Bash": approves "go version" and "go env" (no prompt), adds context.
import json, sys
data = json.load(sys.stdin)
cmd = data["tool_input"].get("command", "")
if cmd.startswith("go version") or cmd.startswith("go env"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "permissionDecisionReason": "read-only go command",
        "additionalContext": "validator: go command approved"}}))
