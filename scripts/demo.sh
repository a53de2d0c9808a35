#!/usr/bin/env bash
# From a fresh clone: installs the pinned pnpm and the dependencies, builds, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
pnpm_version=$(node -p "require('./package.json').packageManager.split('@')[1]")
if [ "$(pnpm -v 2>/dev/null || true)" != "$pnpm_version" ]; then
  echo "demo: installing pnpm $pnpm_version" >&2
  npm install --global "pnpm@$pnpm_version" --no-fund --no-audit >/dev/null
fi
pnpm install --frozen-lockfile --trust-lockfile --reporter=silent
pnpm exec turbo run build --filter=@switchyard/worker... --output-logs=errors-only >&2
exec node apps/worker/dist/cli.js demo "$@"
