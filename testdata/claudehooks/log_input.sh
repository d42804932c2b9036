#!/usr/bin/env bash
# Any event: append the input to $CLAUDE_PROJECT_DIR/hooklog.jsonl.
jq -c . >> "$CLAUDE_PROJECT_DIR/hooklog.jsonl"
