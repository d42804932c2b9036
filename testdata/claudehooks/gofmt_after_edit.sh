#!/usr/bin/env bash
# PostToolUse, matcher "Write|Edit": gofmt the Go file just written.
f=$(jq -r '.tool_input.file_path // ""')
case "$f" in *.go) gofmt -w "$f" && echo "formatted $f" ;; esac
exit 0
