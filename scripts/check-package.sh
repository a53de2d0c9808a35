#!/usr/bin/env bash
# A library package's publishing checks, run in its folder (its `check-package` script): packs it once
# with pnpm, as `pnpm publish` would (workspace ranges replaced), then lints the tarball with publint
# and checks with attw that its types resolve as an ESM-only package's should. (Each tool packing the
# folder itself, attw with npm, cost a second pack of every package.)
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pnpm pack --pack-destination "$out" >/dev/null
tarball=("$out"/*.tgz)
publint run "${tarball[0]}" --strict
attw "${tarball[0]}" --profile esm-only --quiet
