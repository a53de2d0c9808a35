import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTestToolContext } from '@switchyard/testkit';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { parseParams } from '../__fixtures__/tool-harness';
import { createComputerTools } from '../create-computer-tools';
import { findBubblewrap } from './bubblewrap';
import { checkSandbox } from './check-sandbox';

let base: string;
let home: string;

beforeEach(() => {
  base = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'switchyard-probe-'));
  home = path.join(base, 'home');
  mkdirSync(home);
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

/**
 * A `bwrap` that works only while `marker` exists, as bubblewrap does where namespaces come and go
 * (a kernel setting changed, a package installed or removed). Like bubblewrap, one started with
 * `--args` (parked ahead of its command) fails only once its options have come: that is when it
 * would make the namespaces. Each test writes its own, so each has its own probe cache entry.
 */
function switchableBubblewrap(marker: string): string {
  const real = findBubblewrap(process.env.PATH);
  if (real === undefined) throw new Error('these tests need bubblewrap');
  const file = path.join(base, 'bin', 'bwrap');
  const options = path.join(base, 'bin', 'options');
  mkdirSync(path.dirname(file), { recursive: true });
  const refuse = `[ -e '${marker}' ] || { echo 'bwrap: creating new namespace failed: Operation not permitted' >&2; exit 1; }`;
  writeFileSync(
    file,
    [
      '#!/bin/bash',
      // Descriptor 6: where run_command's bubblewrap reads its options. A parked one may not fork
      // until they come (its cgroup allows it one process until then): the first is read by the
      // shell itself, and only then the rest by cat.
      'if [ "$1" = --args ] && [ "$2" = 6 ]; then',
      "  IFS= read -r -d '' -u 6 first",
      `  { printf '%s\\0' "$first"; cat <&6; } > '${options}'.$$`,
      `  ${refuse}`,
      `  exec 6< '${options}'.$$`,
      `  rm -f '${options}'.$$`,
      '  shift 2',
      `  exec '${real}' --args 6 "$@"`,
      'fi',
      refuse,
      `exec '${real}' "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return file;
}

async function runIn(tools: ReturnType<typeof createComputerTools>, command: string) {
  const runCommand = tools[0];
  if (runCommand === undefined) throw new Error('no run_command');
  return runCommand.execute(parseParams(runCommand, { command }), createTestToolContext());
}

describe.runIf(process.platform === 'linux')("mode 'auto' after a failed probe", () => {
  it('probes again after its wait and sandboxes commands once bubblewrap works', async () => {
    const marker = path.join(base, 'works');
    const bwrapPath = switchableBubblewrap(marker);
    const sandbox = { mode: 'auto', bwrapPath } as const;
    // The probes' clock is the test's: a stalled machine cannot make the 1 s wait pass early.
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const tools = createComputerTools({ home, sandbox });
    expect(tools[0]?.description).toContain('Commands are not sandboxed');
    const before = await runIn(tools, 'echo first');
    expect(before.details).toMatchObject({ sandboxed: false, exitCode: 0 });

    writeFileSync(marker, '');
    // The first retry waits 1 s; until then the failed answer stands.
    vi.advanceTimersByTime(900);
    expect((await checkSandbox(sandbox)).active).toBe(false);
    vi.advanceTimersByTime(200);
    const after = await runIn(tools, 'echo second');
    expect(after.details).toMatchObject({ sandboxed: true, exitCode: 0 });
    expect(after.content).toContain('This command ran in the sandbox');
    expect((await checkSandbox(sandbox)).active).toBe(true);
    expect(createComputerTools({ home, sandbox })[0]?.description).toContain('Commands run in a sandbox');
  });

  it('never runs a command unconfined with tools that found the sandbox working', async () => {
    const marker = path.join(base, 'works');
    writeFileSync(marker, '');
    const bwrapPath = switchableBubblewrap(marker);
    const sandbox = { mode: 'auto', bwrapPath } as const;
    // The probes' clock is the test's: the failed command's answer stands however slow the machine.
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const tools = createComputerTools({ home, sandbox });
    expect((await runIn(tools, 'echo ok')).details).toMatchObject({ sandboxed: true, exitCode: 0 });

    rmSync(marker);
    const failed = await runIn(tools, 'touch ran-unconfined');
    expect(failed.isError).toBe(true);
    expect(failed.content).toContain('The sandbox could not start, so the command did not run');
    expect(failed.content).toContain('creating new namespace failed');
    expect(existsSync(path.join(home, 'ran-unconfined'))).toBe(false);

    // The last probe now failed: it is what the next tools (and a health check) go by.
    const status = await checkSandbox(sandbox);
    expect(status.active).toBe(false);
    expect(status.reason).toContain('could not start a sandbox for a command');
    expect(createComputerTools({ home, sandbox })[0]?.description).toContain('Commands are not sandboxed');
  });
});
