#!/usr/bin/env node
// Every change to a library package's src/ comes with a changeset naming that package
// (.changeset/README.md). Compares HEAD with a base: the first argument, else SWITCHYARD_BASE_REF,
// else the merge base with origin/main when HEAD is not on it. Without a base (CI on main itself)
// there is nothing to compare, and it says so.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const git = (root, ...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

function tryGit(root, ...args) {
  try {
    return git(root, ...args);
  } catch {
    return undefined;
  }
}

/** The base to compare HEAD with, or undefined when there is none. */
export function findBase(root, given = process.env.SWITCHYARD_BASE_REF) {
  if (given) {
    const commit = tryGit(root, 'rev-parse', '--verify', '--quiet', `${given}^{commit}`);
    if (commit === undefined) throw new Error(`check-changesets: the base ${given} is not a commit`);
    return commit;
  }
  if (tryGit(root, 'rev-parse', '--verify', '--quiet', 'origin/main^{commit}') === undefined)
    return undefined;
  const mergeBase = tryGit(root, 'merge-base', 'origin/main', 'HEAD');
  return mergeBase === undefined || mergeBase === git(root, 'rev-parse', 'HEAD') ? undefined : mergeBase;
}

/** Package names a changeset's front matter lists (`"@switchyard/core": minor`). */
export function packagesOfChangeset(text) {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  const names = [];
  for (const line of front.split(/\r?\n/)) {
    const match = /^\s*["']?([^"':\s]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (match) names.push(match[1]);
  }
  return names;
}

/**
 * The library packages whose src/ changed between `base` and HEAD (tests and fixtures aside) without
 * a changeset added or changed in that range that names them.
 */
export function missingChangesets(root, base) {
  const changed = git(root, 'diff', '--name-only', `${base}...HEAD`).split('\n').filter(Boolean);
  const touched = new Map();
  for (const file of changed) {
    const match = /^packages\/([^/]+)\/src\/(.+)$/.exec(file);
    if (!match || /\.test\.[cm]?ts$|(^|\/)__fixtures__\//.test(match[2])) continue;
    const manifest = path.join(root, 'packages', match[1], 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, private: isPrivate } = JSON.parse(readFileSync(manifest, 'utf8'));
    if (!isPrivate) touched.set(name, file);
  }
  const named = new Set();
  for (const file of changed) {
    if (!/^\.changeset\/[^/]+\.md$/.test(file) || file.endsWith('README.md')) continue;
    const full = path.join(root, file);
    if (existsSync(full)) for (const name of packagesOfChangeset(readFileSync(full, 'utf8'))) named.add(name);
  }
  return [...touched].filter(([name]) => !named.has(name)).map(([name, file]) => ({ name, file }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = git(process.cwd(), 'rev-parse', '--show-toplevel');
  const base = findBase(root, process.argv[2] ?? process.env.SWITCHYARD_BASE_REF);
  if (base === undefined) {
    console.log(
      'changesets: no base to compare with (HEAD is on origin/main, or there is none): nothing to check',
    );
    process.exit(0);
  }
  const missing = missingChangesets(root, base);
  if (missing.length === 0) {
    console.log(`changesets: every changed library package has one (since ${base.slice(0, 12)})`);
    process.exit(0);
  }
  for (const { name, file } of missing) {
    console.error(
      `changesets: ${name} changed (${file}) but no .changeset/*.md since ${base.slice(0, 12)} names it`,
    );
  }
  console.error('Write one by hand (see .changeset/README.md).');
  process.exit(1);
}
