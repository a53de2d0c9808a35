import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cliPath, runCli } from './__fixtures__/run-cli';
import { VERSION } from './version';

// The README's "from anywhere": the built bin linked into a folder on PATH and run as `switchyard`
// from a folder outside the clone, with nothing of the repository in its working directory.

/** Runs `switchyard ...args` through the PATH lookup, as a user types it. */
function runOnPath(args: string[], options: { cwd: string; bin: string }): Promise<CliRun> {
  return runCli(args, {
    cwd: options.cwd,
    command: 'switchyard',
    env: { PATH: `${options.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: options.cwd },
  });
}

describe('the switchyard bin linked onto PATH, run outside the clone', () => {
  let root: string;
  let bin: string;
  let work: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-anywhere-'));
    bin = path.join(root, 'bin');
    work = path.join(root, 'my-worker');
    await mkdir(bin);
    await mkdir(work);
    // What the README says: ln -sf "$PWD/apps/worker/dist/cli.js" ~/.local/bin/switchyard
    await symlink(cliPath, path.join(bin, 'switchyard'));
    await writeFile(
      path.join(work, 'switchyard.config.json'),
      JSON.stringify({ categories: { computer: { sandbox: 'off' } } }),
    );
  });

  afterAll(() => rm(root, { recursive: true, force: true }));

  it('prints its version and reads the configuration of the folder it runs in', async () => {
    expect(path.relative(path.resolve(cliPath, '../../../..'), work).startsWith('..')).toBe(true);
    const version = await runOnPath(['--version'], { cwd: work, bin });
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    const tools = await runOnPath(['tools', '--json'], { cwd: work, bin });
    expect(tools.stderr).toBe('');
    expect(tools.code).toBe(0);
    const manifest = JSON.parse(tools.stdout) as { tools: Array<{ category: string }> };
    // Only what this folder's configuration enables: todo and computer, no web or schedule.
    expect([...new Set(manifest.tools.map((tool) => tool.category))]).toEqual(['todo', 'computer']);
    // Read-only: nothing was created in the folder.
    expect(existsSync(path.join(work, '.switchyard'))).toBe(false);
  });
});
