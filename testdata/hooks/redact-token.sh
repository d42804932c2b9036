#!/bin/sh
# post_tool_call
jq '{action: "continue", output: (.result.content | gsub("ghp_[A-Za-z0-9]+"; "[redacted]"))}'
