#!/usr/bin/env bash
# Stop: the first time, send the model back to run the tests; then let it stop.
if [ "$(jq -r .stop_hook_active)" = "true" ]; then exit 0; fi
echo "Run the tests before you finish." >&2
exit 2
