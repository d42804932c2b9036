#!/usr/bin/env bash
# UserPromptSubmit: plain stdout is context for the model.
echo "Ticket: T-42"
