import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeBubblewrapSync } from './bubblewrap';

let folder: string;
let savedPath: string | undefined;

beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'switchyard-bwrap-'));
  savedPath = process.env.PATH;
  process.env.PATH = folder;
});

afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(folder, { recursive: true, force: true });
});

/** A `bwrap` that fails its version check: enough to be found and probed. */
function writeBrokenBwrap(): string {
  const file = path.join(folder, 'bwrap');
  writeFileSync(file, '#!/bin/sh\necho broken >&2\nexit 3\n');
  chmodSync(file, 0o755);
  return file;
}

describe.runIf(process.platform === 'linux')('finding bwrap on PATH', () => {
  it('finds one installed after a search that found none', () => {
    expect(probeBubblewrapSync(undefined, 'none').reason).toMatch(/not installed/);
    const file = writeBrokenBwrap();
    const probe = probeBubblewrapSync(undefined, 'none');
    expect(probe.bwrapPath).toBe(file);
    expect(probe.reason).toMatch(/--version failed: broken/);
  });

  it('remembers the binary it found on a PATH instead of searching it on every call', () => {
    const file = writeBrokenBwrap();
    expect(probeBubblewrapSync(undefined, 'none').bwrapPath).toBe(file);
    rmSync(file);
    // The probe of that binary is kept for the process, and so is where it was found.
    expect(probeBubblewrapSync(undefined, 'none').bwrapPath).toBe(file);
  });
});
