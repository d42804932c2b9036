#!/usr/bin/env python3
# PreToolUse, matcher "Read|Edit|Write": denies .env files with permissionDecision.
import json, os, sys
data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if os.path.basename(path).startswith(".env"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "reading %s is not allowed" % os.path.basename(path)}}))
sys.exit(0)
