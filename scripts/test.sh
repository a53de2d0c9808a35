#!/usr/bin/env bash
# The test command (`pnpm test`): build, type-check, lint, package checks, the length check
# (tooling/check-lengths) and every package's tests through turbo. With SWITCHYARD_BASE_REF set to a
# commit that exists, only the packages changed since it and the packages that depend on them are
# tested (turbo --affected); otherwise everything.
set -euo pipefail
cd "$(dirname "$0")/.."
# turbo does not key its cache on the Node version: without this a run under another Node would
# replay the previous run's results instead of testing.
export NODE_RUNTIME_VERSION="$(node -v)" TURBO_TELEMETRY_DISABLED=1
# A change to a library package's src/ comes with a changeset naming it (against the merge base
# with origin/main, or SWITCHYARD_BASE_REF, when there is one).
node tooling/check-changesets/check-changesets.mjs

# --summarize: each turbo run writes .turbo/runs/<id>.json (each task's times), which `pnpm bench`
# reports together with the record this script writes at the end.
turbo=(pnpm exec turbo run)
# (Both flags take an optional value, so they come after the task names.)
flags=(--continue --summarize)
started_ms=$(node -p 'Date.now()')
load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)
status=0
base="${SWITCHYARD_BASE_REF:-}"
if [ -n "$base" ] && git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
  echo "test: packages affected since $base and their dependents"
  whole=false
  TURBO_SCM_BASE="$base" "${turbo[@]}" build type-check lint check-package test --concurrency=3 --affected "${flags[@]}" ||
    status=$?
  # The length check reads every package's sources, but --affected picks packages by the files
  # changed in them: it runs on its own (turbo replays it when no source changed).
  "${turbo[@]}" check-lengths --filter=@switchyard/check-lengths "${flags[@]}" || status=$?
  # The console's browser tests run against the worker's build, but the console cannot depend on the
  # worker's package (the worker bundles the console's), so --affected does not count it among the
  # worker's dependents: when the worker is affected and the console is not, its tests run here.
  affected=$(TURBO_SCM_BASE="$base" pnpm exec turbo ls --affected --output=json)
  if grep -q '"name": "@switchyard/worker"' <<<"$affected" && ! grep -q '"name": "@switchyard/console"' <<<"$affected"; then
    "${turbo[@]}" test --filter=@switchyard/console "${flags[@]}" || status=$?
  fi
else
  echo "test: every package"
  whole=true
  # Every build first; then two lanes at once. The worker's suite is the longest task (six to seven
  # minutes on 2 cores): in one turbo run it queued behind the libraries' builds, type checks and
  # tests, which turbo runs package by package, and then ran alone at the end, so it has a lane of its
  # own from the start: its tests, then the worker's and the console's type checks and lints. The
  # other lane runs everything else, two tasks at once (with three, four tasks in all, every task
  # slowed down and the whole took 549 s instead of 511 s), then the console's browser tests (a real
  # `switchyard serve` and chromium each): after the libraries' tests, not beside them (four heavy
  # processes on two cores), and not after the worker's tests, where they ran while the other lane's
  # core sat idle (8 min 52 s on Node 20). The lint is in the lanes, not beside the builds, so that a
  # lint error alone still lets every test run; when a build fails, the tests cannot run, and only the
  # lint does.
  daemon_lane=(--filter=@switchyard/worker --filter=@switchyard/console)
  "${turbo[@]}" build --concurrency=3 "${flags[@]}" || status=$?
  if [ "$status" = 0 ]; then
    (
      lane=0
      "${turbo[@]}" test --only --filter=@switchyard/worker "${flags[@]}" || lane=$?
      "${turbo[@]}" type-check lint --only "${daemon_lane[@]}" "${flags[@]}" || lane=$?
      exit "$lane"
    ) &
    worker_lane=$!
    "${turbo[@]}" type-check lint check-package check-lengths test --only --concurrency=2 \
      --filter='!@switchyard/worker' --filter='!@switchyard/console' "${flags[@]}" || status=$?
    "${turbo[@]}" test --only --filter=@switchyard/console "${flags[@]}" || status=$?
    wait "$worker_lane" || status=$?
  else
    "${turbo[@]}" lint check-lengths --concurrency=3 "${flags[@]}" || true
  fi
fi

# The whole run, which turbo's summaries do not record: when it started and ended, the Node version,
# the cores, the 1-minute load average before and after, and how it ended (`pnpm bench` reads it with
# the summaries written between its start and end).
ended_ms=$(node -p 'Date.now()')
load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)
mkdir -p .turbo/runs
printf '{"startedAt":%s,"endedAt":%s,"whole":%s,"status":%s,"node":"%s","cores":%s,"loadBefore":%s,"loadAfter":%s}\n' \
  "$started_ms" "$ended_ms" "$whole" "$status" "$(node -v)" "$(nproc 2>/dev/null || echo null)" \
  "$load_before" "$load_after" > ".turbo/runs/suite-$started_ms.json"
exit "$status"
