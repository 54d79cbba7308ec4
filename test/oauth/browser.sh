#!/bin/sh
# BROWSER for the MCP Inspector CLI in test/oauth/inspector.test.ts: the consent bot (browser.ts).
exec "$STOCKD_BUN" "$(dirname "$0")/browser.ts" "$@"
