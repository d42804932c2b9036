#!/usr/bin/env python3
# PreToolUse, matcher "Bash": Claude Code's documented validator example (grep → rg), exit 2.
import json, re, sys
data = json.load(sys.stdin)
cmd = data.get("tool_input", {}).get("command", "")
if re.search(r"^grep\b(?!.*\|)", cmd):
    print("Use 'rg' (ripgrep) instead of 'grep' for better performance", file=sys.stderr)
    sys.exit(2)
