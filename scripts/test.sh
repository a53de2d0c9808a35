#!/usr/bin/env bash
# The test command (`pnpm test`): build, type-check, lint, package checks and every package's tests
# through turbo. With SWITCHYARD_BASE_REF set to a commit that exists, only the packages changed
# since it and the packages that depend on them are tested (turbo --affected); otherwise everything.
set -euo pipefail
cd "$(dirname "$0")/.."
# turbo does not key its cache on the Node version: without this a run under another Node would
# replay the previous run's results instead of testing.
export NODE_RUNTIME_VERSION="$(node -v)" TURBO_TELEMETRY_DISABLED=1
# --summarize: turbo writes .turbo/runs/<id>.json (each task's times), which `pnpm bench` reports.
args=(run build type-check lint check-package test --concurrency=3 --continue --summarize)
base="${SWITCHYARD_BASE_REF:-}"
if [ -n "$base" ] && git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
  echo "test: packages affected since $base and their dependents"
  export TURBO_SCM_BASE="$base"
  args+=(--affected)
else
  echo "test: every package"
fi
# A change to a library package's src/ comes with a changeset naming it (against the merge base
# with origin/main, or SWITCHYARD_BASE_REF, when there is one).
node tooling/check-changesets/check-changesets.mjs
# Beside turbo's run summary: the Node version and the load average before and after, which the
# summary does not record (`pnpm bench` reports them with the run).
started_ms=$(node -p 'Date.now()')
load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)
status=0
pnpm exec turbo "${args[@]}" || status=$?
load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)
mkdir -p .turbo/runs
printf '{"startedAt":%s,"node":"%s","cores":%s,"loadBefore":%s,"loadAfter":%s}\n' \
  "$started_ms" "$(node -v)" "$(nproc 2>/dev/null || echo null)" "$load_before" "$load_after" \
  > ".turbo/runs/load-$started_ms.json"
exit "$status"
