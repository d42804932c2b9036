#!/bin/sh
# scripts/check.sh — on_turn_end
out=$(go test ./... 2>&1) && exit 0
printf 'The tests fail; fix them before finishing:\n%s\n' "$out" >&2
exit 2
