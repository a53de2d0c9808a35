#!/usr/bin/env bash
# A library package's publishing checks, run in its folder (its `check-package` script): packs it once
# with pnpm, as `pnpm publish` would (workspace ranges replaced), then lints the tarball with publint
# and checks with attw that its types resolve as an ESM-only package's should. (Each tool packing the
# folder itself, attw with npm, cost a second pack of every package.) Last, no file of the tarball
# may import a private workspace package (the testkit bundles the fake Responses server, for one):
# nothing outside this repository could install it.
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pnpm pack --pack-destination "$out" >/dev/null
tarball=("$out"/*.tgz)
publint run "${tarball[0]}" --strict
attw "${tarball[0]}" --profile esm-only --quiet
tar -xzf "${tarball[0]}" -C "$out"
node --input-type=module - "$out/package" <<'NODE'
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
const workspace = path.resolve(process.cwd(), '../..');
// Every private package of the workspace (a partial copy of it may lack some of these folders).
const manifests = ['tooling', 'apps'].filter((folder) => existsSync(path.join(workspace, folder))).flatMap((folder) =>
  readdirSync(path.join(workspace, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(workspace, folder, entry.name, 'package.json')),
);
manifests.push(path.join(workspace, 'bench', 'package.json'));
const privateNames = manifests.flatMap((file) => {
  try {
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    return manifest.private === true ? [manifest.name] : [];
  } catch {
    return [];
  }
});
const files = (directory) =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(path.join(directory, entry.name)) : [path.join(directory, entry.name)],
  );
const found = [];
for (const file of files(process.argv[2]).filter((name) => /\.(js|d\.ts)$/.test(name))) {
  const text = readFileSync(file, 'utf8');
  for (const name of privateNames) {
    if (text.includes(`"${name}"`) || text.includes(`'${name}'`) || text.includes(`"${name}/`) || text.includes(`'${name}/`)) {
      found.push(`${path.relative(process.argv[2], file)} imports ${name}`);
    }
  }
}
if (found.length > 0) {
  console.error(`The package imports private workspace packages (bundle them with tsup's noExternal):\n${found.join('\n')}`);
  process.exit(1);
}
NODE
