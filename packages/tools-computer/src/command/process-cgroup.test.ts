import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeStaleCgroups } from './process-cgroup';

const OUTSIDE_TMP = existsSync('/var/tmp') ? '/var/tmp' : '/tmp';

// The names and the rules are what a cgroup folder is judged by; any folder stands in for the
// cgroup parent (removing an empty cgroup is an rmdir, as for a folder).
describe('cgroups that stopped workers left', () => {
  it('are removed when empty and old enough, never those of a live process or in use', async () => {
    const parent = mkdtempSync(path.join(OUTSIDE_TMP, 'switchyard-cgroups-'));
    try {
      const ended = spawn('true');
      await new Promise((resolve) => ended.once('exit', resolve));
      const deadPid = ended.pid as number;
      const dead = path.join(parent, `switchyard-${deadPid}-0123abcd`);
      const deadProbe = path.join(parent, `switchyard-probe-${deadPid}-0123abce`);
      const live = path.join(parent, `switchyard-${process.ppid}-0123abcf`);
      const own = path.join(parent, `switchyard-${process.pid}-0123abd0`);
      const inUse = path.join(parent, `switchyard-${deadPid}-0123abd1`);
      const other = path.join(parent, 'system.slice');
      for (const folder of [dead, deadProbe, live, own, inUse, other]) mkdirSync(folder);
      // A cgroup that holds a process cannot be removed; a folder that is not empty stands in for it.
      mkdirSync(path.join(inUse, 'held'));
      // Made just now: too young to be a stopped worker's by default.
      expect(await removeStaleCgroups(parent)).toBe(0);
      expect(await removeStaleCgroups(parent, 0)).toBe(2);
      expect([dead, deadProbe].map(existsSync)).toEqual([false, false]);
      expect([live, own, inUse, other].map(existsSync)).toEqual([true, true, true, true]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
