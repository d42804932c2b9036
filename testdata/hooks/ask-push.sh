#!/bin/sh
# pre_tool_call, "tools": ["bash"]
if jq -e '.tool_call.arguments.command | test("git push")' >/dev/null; then
  echo '{"action": "pause", "reason": "pushing needs your approval"}'
fi
