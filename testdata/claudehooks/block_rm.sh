#!/usr/bin/env bash
# PreToolUse, matcher "Bash": blocks rm -rf (exit 2, stderr to the model).
cmd=$(jq -r '.tool_input.command // ""')
if printf '%s' "$cmd" | grep -Eq 'rm +-[a-zA-Z]*r[a-zA-Z]*f|rm +-[a-zA-Z]*f[a-zA-Z]*r'; then
  echo "rm -rf is blocked by policy: $cmd" >&2
  exit 2
fi
exit 0
