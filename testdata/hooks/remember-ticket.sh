#!/bin/sh
# pre_compact
jq -c '{action: "continue", summary: (.summary + "\nThe work is for ticket T-1234.")}'
