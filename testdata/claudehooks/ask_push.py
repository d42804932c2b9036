#!/usr/bin/env python3
# PreToolUse, matcher "Bash": a git push needs a person, even in yolo mode.
import json, sys
data = json.load(sys.stdin)
if "git push" in data["tool_input"].get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "ask", "permissionDecisionReason": "pushing needs a person"}}))
