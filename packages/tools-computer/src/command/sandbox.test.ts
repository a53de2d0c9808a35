import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestToolContext } from '@switchyard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processesWith, uniqueSleepToken as token } from '../__fixtures__/host-processes';
import { parseParams } from '../__fixtures__/tool-harness';
import type { ComputerToolsContext } from '../computer-tools-context';
import { resolveComputerSettings } from '../resolve-computer-settings';
import type { RunCommandDetails } from './run-command-tool';
import { createRunCommandTool } from './run-command-tool';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('../__fixtures__/run-command-process.ts', import.meta.url));

// Outside /tmp on purpose: the sandbox's private /tmp hides the host's /tmp anyway, so paths that
// must be hidden by `hiddenPaths` are tested where only `hiddenPaths` can hide them.
const OUTSIDE_TMP = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();

let base: string;
let home: string;

beforeEach(() => {
  base = mkdtempSync(path.join(OUTSIDE_TMP, 'switchyard-sandbox-'));
  home = path.join(base, 'homes', 'ada');
  mkdirSync(home, { recursive: true });
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

async function runSandboxed(
  command: string,
  overrides: Partial<ComputerToolsContext> = {},
  timeoutMs?: number,
) {
  const runCommand = createRunCommandTool(
    resolveComputerSettings({
      home,
      sandbox: 'required',
      ...overrides,
      limits: { killGraceMs: 300, ...overrides.limits },
    }),
  );
  const result = await runCommand.execute(
    parseParams(runCommand, { command, ...(timeoutMs === undefined ? {} : { timeout_ms: timeoutMs }) }),
    createTestToolContext(),
  );
  return { result, text: typeof result.content === 'string' ? result.content : '' };
}

describe('the sandbox hides the worker', () => {
  it("never shows the worker's environment: markers in the worker process's own environment stay out of every output", async () => {
    const marker = randomUUID();
    // A worker process of its own, started with secrets in its real environment (/proc/<pid>/environ
    // shows a process's environment as it was started, so a test must start one).
    const environment = {
      ...process.env,
      SWITCHYARD_WORKER_MARKER: `marker-${marker}`,
      OPENAI_API_KEY: `sk-${marker}`,
      DATABASE_URL: `postgres://worker:${marker}@127.0.0.1/switchyard`,
    };
    // What the checks look for first, and short: the output is cut to its head and tail past the
    // tool's cap, and on a busy machine the listing of every process alone passed the head. The
    // worker's own environment (the shell's parent), then the process lines naming `node` (the
    // worker's command line, not `comm`: Node 24 names its main thread `MainThread`), then the rest.
    const command = [
      'tr "\\0" "\\n" < /proc/$PPID/environ',
      'ps -eo pid,args | cut -c1-60 | grep -E "^ *[0-9]+ (\\S*/)?node( |$)"',
      'tr "\\0" "\\n" < /proc/1/environ',
      'for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f"; done',
      'env',
    ].join('; ');
    const inWorker = async (sandbox: 'required' | 'off') => {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', fixture, JSON.stringify({ home, sandbox, command })],
        { env: environment, cwd: path.dirname(fixture), maxBuffer: 16 * 1024 * 1024 },
      ).catch((error: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(
          `the worker process (sandbox ${sandbox}) failed: ${error.message}\n${error.stderr ?? ''}`,
        );
      });
      try {
        return JSON.parse(stdout) as { content: string; details: RunCommandDetails };
      } catch {
        throw new Error(
          `the worker process (sandbox ${sandbox}) printed no result: ${stdout.slice(0, 500)}\n${stderr}`,
        );
      }
    };
    const sandboxed = await inWorker('required');
    expect(sandboxed.details.sandboxed).toBe(true);
    // All of its output is checked: none of it was cut.
    expect(sandboxed.details.truncated).toBe(false);
    expect(sandboxed.content).toContain(`HOME=${home}`);
    expect(sandboxed.content).not.toContain(marker);
    // Only the command's own processes: the sandbox's init, the shell, ps, cut and grep (a `ps -eo
    // pid,args` line naming a node binary would be the worker; PATH lines may name node folders).
    const workerLine = /^\s*\d+ (\S*\/)?node(\s|$)/m;
    expect(sandboxed.content).not.toMatch(workerLine);

    // The same command without the sandbox finds them: the probe above is a real one.
    const unconfined = await inWorker('off');
    expect(unconfined.details.sandboxed).toBe(false);
    expect(unconfined.content).toContain(`sk-${marker}`);
    expect(unconfined.content).toMatch(workerLine);
  }, 60_000);
});

describe("an unprivileged worker's commands", () => {
  it("are sandboxed the same way, and the worker user's credential files are hidden", async () => {
    // As root, the worker process runs as nobody (the path a non-root worker takes: bubblewrap in a
    // user namespace it creates unprivileged); as any other user, as that user.
    const asRoot = process.getuid?.() === 0;
    const workerHome = path.join(base, 'worker-user');
    mkdirSync(path.join(workerHome, '.ssh'), { recursive: true });
    const key = `key-${randomUUID()}`;
    writeFileSync(path.join(workerHome, '.ssh', 'id_ed25519'), key);
    const escapee = token();
    if (asRoot) {
      for (const entry of [base, path.join(base, 'homes'), home, workerHome, path.join(workerHome, '.ssh')]) {
        chownSync(entry, 65534, 65534);
      }
      chownSync(path.join(workerHome, '.ssh', 'id_ed25519'), 65534, 65534);
      chmodSync(base, 0o755);
    }
    const request = JSON.stringify({
      home,
      sandbox: 'required',
      command: [
        'id -u',
        `cat ${workerHome}/.ssh/id_ed25519 || echo key-hidden`,
        `echo x > ${base}/escape || echo outside-refused`,
        `setsid env -i sleep ${escapee} &`,
        'echo in-home > mine && cat mine',
      ].join('\n'),
    });
    const nodeArgs = ['--import', 'tsx', fixture, request];
    const [file, args] = asRoot
      ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...nodeArgs]]
      : [process.execPath, nodeArgs];
    const { stdout } = await run(file, args, {
      // HOME is where the worker user's credential files are looked for (os.homedir()).
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workerHome },
      cwd: path.dirname(fixture),
    });
    const result = JSON.parse(stdout) as { content: string; details: RunCommandDetails };
    expect(result.details).toMatchObject({ sandboxed: true, exitCode: 0, stoppedProcesses: 1 });
    if (asRoot) expect(result.content.split('\n')[0]).toBe('65534');
    expect(result.content).toContain('key-hidden');
    expect(result.content).not.toContain(key);
    expect(result.content).toContain('outside-refused');
    expect(result.content).toContain('in-home');
    expect(existsSync(path.join(base, 'escape'))).toBe(false);
    expect(processesWith(escapee)).toEqual([]);
  }, 60_000);
});

describe('the sandbox ends every process with the command', () => {
  it('a `setsid env -i` escapee does not outlive a command that exits', async () => {
    const escapee = token();
    const { result } = await runSandboxed(`setsid env -i sleep ${escapee} & echo started`);
    expect(result.details).toMatchObject({ exitCode: 0, stoppedProcesses: 1, sandboxed: true });
    expect(processesWith(escapee)).toEqual([]);
  });

  it('a `setsid env -i` escapee that ignores SIGTERM does not outlive a timeout', async () => {
    const escapee = token();
    const { result } = await runSandboxed(
      `setsid env -i bash -c 'trap "" TERM; exec sleep ${escapee}' &\nsleep 60`,
      {},
      1_500,
    );
    expect(result.details?.timedOut).toBe(true);
    expect(processesWith(escapee)).toEqual([]);
  });

  it('nohup, double forks and disowned jobs do not outlive the command', async () => {
    const tokens = [token(), token(), token()];
    const { result } = await runSandboxed(
      [
        `nohup sleep ${tokens[0]} >/dev/null 2>&1 &`,
        `( ( sleep ${tokens[1]} & ) & )`,
        `sleep ${tokens[2]} & disown`,
        'echo done',
      ].join('\n'),
    );
    expect(result.details?.exitCode).toBe(0);
    // At least the three sleeps; the double fork's middle subshell may not have exited yet when the
    // command ends, and is then stopped too.
    expect(result.details?.stoppedProcesses).toBeGreaterThanOrEqual(3);
    for (const value of tokens) expect(processesWith(value)).toEqual([]);
  });
});

describe('the sandbox confines the file system', () => {
  it('lets the command write only in the home and a private /tmp', async () => {
    const marker = randomUUID();
    const outside = path.join(base, `escape-${marker}`);
    const { text } = await runSandboxed(
      [
        'echo in-home > in-home.txt && echo home-ok',
        `echo x > ${outside} || echo outside-refused`,
        `touch /etc/switchyard-${marker} || echo etc-refused`,
        `echo private > /tmp/private-${marker} && cat /tmp/private-${marker}`,
      ].join('\n'),
    );
    expect(text).toContain('home-ok');
    expect(text).toContain('Read-only file system');
    expect(text).toContain('outside-refused');
    expect(text).toContain('etc-refused');
    expect(text).toContain('private\n');
    expect(readFileSync(path.join(home, 'in-home.txt'), 'utf8')).toBe('in-home\n');
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(`/etc/switchyard-${marker}`)).toBe(false);
    expect(existsSync(`/tmp/private-${marker}`)).toBe(false);
  });

  it("shows no other agent's home, state directory or database, with or without hiddenPaths", async () => {
    const secret = `bob-${randomUUID()}`;
    const homes = path.join(base, 'homes');
    mkdirSync(path.join(homes, 'bob'));
    writeFileSync(path.join(homes, 'bob', 'notes.txt'), secret);
    const state = path.join(base, '.switchyard');
    mkdirSync(path.join(state, 'db'), { recursive: true });
    writeFileSync(path.join(state, 'db', 'PG_VERSION'), secret);
    const command = [
      `ls ${homes}`,
      `cat ${homes}/bob/notes.txt`,
      `cat ${state}/db/PG_VERSION`,
      `echo overwritten > ${homes}/bob/notes.txt || echo write-refused`,
    ].join('; ');

    for (const sandbox of [
      { mode: 'required', hiddenPaths: [homes, state] },
      { mode: 'required' },
    ] as const) {
      const { text } = await runSandboxed(command, { sandbox });
      expect(text.split('\n')[0]).toBe('ada');
      expect(text).not.toContain(secret);
      expect(text).toContain('write-refused');
    }
    expect(readFileSync(path.join(homes, 'bob', 'notes.txt'), 'utf8')).toBe(secret);
    expect(readdirSync(homes).sort()).toEqual(['ada', 'bob']);
  });

  it('shows readOnlyPaths read-only, and covers hiddenPaths inside what it shows (the home included)', async () => {
    const shared = path.join(base, 'shared');
    mkdirSync(path.join(shared, 'private'), { recursive: true });
    writeFileSync(path.join(shared, 'readme.txt'), 'shared notes\n');
    writeFileSync(path.join(shared, 'private', 'key'), 'shared-secret');
    mkdirSync(path.join(home, '.state'));
    writeFileSync(path.join(home, '.state', 'token'), 'home-secret');
    const command = [
      `cat ${shared}/readme.txt`,
      `echo x > ${shared}/new.txt || echo shared-write-refused`,
      `cat ${shared}/private/key || echo shared-private-hidden`,
      `cat ${home}/.state/token || echo home-state-hidden`,
      `touch ${shared}/private/x || echo cover-read-only`,
    ].join('; ');
    const { text } = await runSandboxed(command, {
      sandbox: {
        mode: 'required',
        readOnlyPaths: [shared],
        hiddenPaths: [path.join(shared, 'private'), path.join(home, '.state')],
      },
    });
    expect(text).toContain('shared notes');
    expect(text).toContain('shared-write-refused');
    expect(text).toContain('shared-private-hidden');
    expect(text).toContain('home-state-hidden');
    expect(text).toContain('cover-read-only');
    expect(text).not.toContain('shared-secret');
    expect(text).not.toContain('home-secret');
    expect(existsSync(path.join(shared, 'new.txt'))).toBe(false);

    // Without readOnlyPaths the folder is not there at all.
    const { text: unshown } = await runSandboxed(`cat ${shared}/readme.txt || echo not-shown`);
    expect(unshown).toContain('not-shown');
  });
});

describe('the sandbox network', () => {
  it("with network 'none' a command cannot open a loopback TCP connection to a server the test runs", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const command = `if exec 3<>/dev/tcp/127.0.0.1/${port}; then echo CONNECTED; head -1 <&3; else echo REFUSED; fi`;
    try {
      const none = await runSandboxed(command, { sandbox: { mode: 'required', network: 'none' } });
      expect(none.text).toContain('REFUSED');
      expect(none.text).not.toContain('CONNECTED');
      expect(connections).toBe(0);

      const host = await runSandboxed(command, { sandbox: { mode: 'required', network: 'host' } });
      expect(host.text).toContain('CONNECTED\nhello from the host');
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('commands agents run work in the sandbox', () => {
  it('git init, node -e, python3 -c, wc, pipes and a script in the home', async () => {
    writeFileSync(path.join(home, 'shout.sh'), '#!/usr/bin/env bash\necho "hello $1"\n', { mode: 0o755 });
    const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;
    const { result, text } = await runSandboxed(
      [
        'git init -q repo && git -C repo status --porcelain && echo git-ok',
        'node -e "console.log(\'node\', 6 * 7)"',
        ...(hasPython ? ['python3 -c "print(\'python\', 6 * 7)"'] : []),
        'printf "a\\nb\\nc\\n" | wc -l',
        './shout.sh world | tr a-z A-Z',
      ].join(' && '),
    );
    expect(result.details?.exitCode).toBe(0);
    expect(text).toContain('git-ok');
    expect(existsSync(path.join(home, 'repo', '.git', 'HEAD'))).toBe(true);
    expect(text).toContain('node 42');
    if (hasPython) expect(text).toContain('python 42');
    expect(text).toMatch(/^3$/m);
    expect(text).toContain('HELLO WORLD');
  });
});
