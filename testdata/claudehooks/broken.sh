#!/usr/bin/env bash
# PreToolUse: a hook that fails (exit 1): a warning, never a block.
echo "broken hook" >&2
exit 1
