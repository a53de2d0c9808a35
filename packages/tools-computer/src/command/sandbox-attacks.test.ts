import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandWorkerProcess } from '../__fixtures__/command-worker-process';
import { processesWith, uniqueSleepToken as token } from '../__fixtures__/host-processes';
import type { ComputerToolsContext, ComputerToolsLimits } from '../computer-tools-context';

// Each attack of issue 38 is run by a worker process of its own (command-worker.ts), as root and,
// when the tests run as root (CI does), as an unprivileged user (nobody, through setpriv): the two
// paths bubblewrap takes. The worker's RSS is read from /proc while the limits are tested.
const asRoot = process.getuid?.() === 0;
const UNPRIVILEGED = 65534;
const workers = asRoot
  ? [
      { who: 'root', uid: undefined },
      { who: 'an unprivileged user (nobody)', uid: UNPRIVILEGED },
    ]
  : [{ who: `this user (uid ${process.getuid?.()})`, uid: undefined }];

/** The worker's RSS may rise at most this much while one attack runs (issue 38's acceptance). */
const MAX_RSS_GROWTH = 50 * 1024 * 1024;

/** Every mode bit of every file under `folder` (not following symlinks). */
function modesUnder(folder: string): { file: string; mode: number }[] {
  const found: { file: string; mode: number }[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    found.push({ file, mode: lstatSync(file).mode });
    if (entry.isDirectory()) found.push(...modesUnder(file));
  }
  return found;
}

describe.each(workers)('a worker running as $who', ({ uid }) => {
  let base: string;
  let home: string;
  let worker: CommandWorkerProcess;

  beforeAll(() => {
    // Outside /tmp: the sandbox's private /tmp would hide a folder under the host's /tmp anyway.
    base = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'switchyard-attack-'));
    chmodSync(base, 0o755);
    home = path.join(base, 'homes', 'ada');
    mkdirSync(home, { recursive: true });
    if (uid !== undefined) {
      for (const folder of [base, path.join(base, 'homes'), home]) chownSync(folder, uid, uid);
    }
    worker = CommandWorkerProcess.start({ uid });
  });

  afterAll(async () => {
    await worker.stop();
    rmSync(base, { recursive: true, force: true });
  });

  const context = (
    limits: ComputerToolsLimits = {},
    sandbox: ComputerToolsContext['sandbox'] = 'required',
  ) => ({
    home,
    sandbox,
    limits: { killGraceMs: 300, ...limits },
  });

  it('cannot leave a setuid or setgid file in the home (chmod, fchmodat, open with O_CREAT)', async () => {
    const { content, details } = await worker.run(
      [
        'cp /usr/bin/true planted',
        'chmod 6755 planted || echo chmod-refused',
        'chmod g+s planted || echo setgid-refused',
        `python3 -c "import os; os.open('created', os.O_CREAT | os.O_WRONLY, 0o4755)" || echo create-refused`,
        'mkdir folder && chmod 2775 folder || echo folder-refused',
        'chmod 755 planted && echo plain-chmod-works',
      ].join('\n'),
      context(),
    );
    expect(details.sandboxed).toBe(true);
    expect(content).toContain('chmod-refused');
    expect(content).toContain('setgid-refused');
    expect(content).toContain('create-refused');
    expect(content).toContain('folder-refused');
    expect(content).toContain('Operation not permitted');
    expect(content).toContain('plain-chmod-works');
    const privileged = modesUnder(home).filter(({ mode }) => (mode & 0o6000) !== 0);
    expect(privileged).toEqual([]);
    expect(existsSync(path.join(home, 'planted'))).toBe(true);
  });

  describe('what a command sees of the host', () => {
    let server: Server;
    let socketFolder: string;
    let connections = 0;

    beforeAll(async () => {
      // A socket folder as PostgreSQL's (/var/run/postgresql): where the old sandbox showed it.
      socketFolder = asRoot ? `/run/switchyard-test-${randomUUID().slice(0, 8)}` : path.join(base, 'run');
      mkdirSync(socketFolder, { recursive: true, mode: 0o777 });
      chmodSync(socketFolder, 0o777);
      server = createServer((socket) => {
        connections += 1;
        socket.end('the worker database\n');
      });
      await new Promise<void>((resolve) => server.listen(path.join(socketFolder, '.s.PGSQL.5432'), resolve));
      chmodSync(path.join(socketFolder, '.s.PGSQL.5432'), 0o777);
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(socketFolder, { recursive: true, force: true });
    });

    it('reaches no Unix socket of the host: the socket folder is not there (unconfined, the same command connects)', async () => {
      const socket = path.join(socketFolder, '.s.PGSQL.5432');
      const command = `node -e "require('net').connect('${socket}').on('data', (d) => console.log('CONNECTED', String(d).trim())).on('error', (e) => console.log('REFUSED', e.code))"; ls ${socketFolder} || echo folder-missing`;
      const sandboxed = await worker.run(command, context());
      expect(sandboxed.content).toContain('REFUSED ENOENT');
      expect(sandboxed.content).toContain('folder-missing');
      expect(connections).toBe(0);
      const unconfined = await worker.run(command, context({}, 'off'));
      expect(unconfined.content).toContain('CONNECTED the worker database');
      expect(connections).toBe(1);
    });

    it("shows an allowlist: no other home, no state directory, no user's files, no /etc/shadow, no host mount in mountinfo", async () => {
      const secret = `secret-${randomUUID()}`;
      const bob = path.join(base, 'homes', 'bob');
      const state = path.join(base, '.switchyard', 'db');
      const userHome = path.join(base, 'worker-user');
      mkdirSync(bob, { recursive: true });
      mkdirSync(state, { recursive: true });
      mkdirSync(path.join(userHome, '.config', 'app'), { recursive: true });
      for (const file of [
        path.join(bob, 'notes.txt'),
        path.join(state, 'PG_VERSION'),
        path.join(userHome, '.bash_history'),
        path.join(userHome, '.env'),
        path.join(userHome, '.config', 'app', 'token'),
      ]) {
        writeFileSync(file, secret, { mode: 0o644 });
      }
      const { content } = await worker.run(
        [
          `cat ${bob}/notes.txt ${state}/PG_VERSION ${userHome}/.bash_history ${userHome}/.env ${userHome}/.config/app/token`,
          'cat /etc/shadow || echo no-shadow',
          'ls /root /home /run /var/run /srv /opt 2>&1 | head -20',
          'ls /',
          'echo MOUNTINFO',
          'cat /proc/self/mountinfo',
        ].join('; '),
        context(),
      );
      expect(content).not.toContain(secret);
      expect(content).toContain('no-shadow');
      expect(content).not.toContain('root:');
      const mountinfo = content.slice(content.indexOf('MOUNTINFO'));
      const mountPoints = mountinfo
        .split('\n')
        .slice(1)
        .map((line) => line.split(' ')[4])
        .filter((point): point is string => point?.startsWith('/') === true);
      expect(mountPoints.length).toBeGreaterThan(5);
      for (const point of mountPoints) {
        // Only the home of everything under the test's folder is mounted.
        if (point.startsWith(base)) expect(point).toBe(home);
        expect(point).not.toMatch(/^\/(root|home|run|var\/run|srv|work\/notes)(\/|$)/);
        expect(point).not.toBe('/etc/shadow');
      }
      // The root holds only what the sandbox put there.
      const rootListing = content.slice(content.indexOf('\nbin\n'), content.indexOf('MOUNTINFO'));
      expect(rootListing).not.toMatch(/^(root|home|run|srv|opt|boot|mnt|media)$/m);
    });
  });

  describe('limits', () => {
    // The worker's RSS is measured from a worker that has run commands: its first sandboxed command
    // loads code and probes once (tens of MB the first time), which no attack is to blame for.
    beforeAll(async () => {
      await worker.run('true', context());
      await worker.run('seq 1 20000', context({ maxOutputBytes: 1024 }));
    });

    it('a fork bomb is killed at the process limit', async () => {
      const { content, details, rssGrowth } = await worker.runMeasured(
        `bomb() { bomb | bomb & }; bomb; sleep ${token()}`,
        context({ maxProcesses: 64 }),
        30_000,
      );
      expect(details.limitExceeded?.limit).toBe('processes');
      expect(content).toContain('Killed: process limit 64');
      expect(details.timedOut).toBe(false);
      expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
    });

    it('a memory balloon over several processes is killed at the memory limit', async () => {
      const balloon = `python3 -c "import time; a = b'x' * (60 * 2**20); time.sleep(30)"`;
      const { content, details, rssGrowth } = await worker.runMeasured(
        `for i in 1 2 3 4; do ${balloon} & done; wait`,
        context({ maxMemoryBytes: 128 * 1024 * 1024 }),
        30_000,
      );
      expect(details.limitExceeded?.limit).toBe('memory');
      expect(content).toContain('Killed: memory limit 128 MiB');
      expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
    });

    it('one process cannot allocate past the memory limit (its data segment is limited to it)', async () => {
      const { content, details } = await worker.run(
        `python3 -c "a = b'x' * (300 * 2**20); print('allocated')" || echo refused`,
        context({ maxMemoryBytes: 128 * 1024 * 1024 }),
        30_000,
      );
      expect(content).toContain('MemoryError');
      expect(content).toContain('refused');
      expect(content).not.toContain('allocated');
      expect(details.exitCode).toBe(0);
    });

    it('filling /dev/shm stops at its size, and with the processes it counts against the memory limit', async () => {
      const { content, details, rssGrowth } = await worker.runMeasured(
        'dd if=/dev/zero of=/dev/shm/fill bs=1M count=1000; df -k /dev/shm | tail -1; sleep 30',
        context({ maxMemoryBytes: 64 * 1024 * 1024 }),
        30_000,
      );
      // The memory monitor may see the filled /dev/shm with dd's own memory over 64 MiB and end the
      // command before dd says the device is full; either way it ends at the memory limit.
      if (content.includes('1000+0 records out')) throw new Error(`the fill was not stopped:\n${content}`);
      expect(details.limitExceeded?.limit).toBe('memory');
      expect(content).toContain('Killed: memory limit 64 MiB');
      expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
    });

    it('filling /tmp stops at its size (or is killed at the memory limit first)', async () => {
      const { content, details } = await worker.run(
        'dd if=/dev/zero of=/tmp/fill bs=1M count=1000 2>&1 | head -1; du -m /tmp/fill',
        context({ maxMemoryBytes: 64 * 1024 * 1024 }),
        30_000,
      );
      // The tmpfs refuses the 65th MiB; the monitor may see the full /tmp with the processes'
      // memory over 64 MiB and end the command before dd says so.
      if (content.includes('Killed: memory limit 64 MiB')) {
        expect(details.limitExceeded?.limit).toBe('memory');
      } else {
        expect(content).toContain('No space left on device');
        expect(content).toMatch(/^64\s+\/tmp\/fill$/m);
      }
    });

    it('an output flood keeps the worker small: read into one buffer, no faster than the saved output is written', async () => {
      // 400 MB: six times the saved output's cap, every byte of it read through the worker. Read into
      // a new buffer each time, the dropped reads piled up to 61-73 MB before a collection on Node 24.
      const { content, details, rssGrowth } = await worker.runMeasured(
        "head -c 400000000 /dev/zero | tr '\\0' x",
        context(),
        80_000,
      );
      expect(details.outputBytes).toBe(400_000_000);
      expect(details.truncated).toBe(true);
      expect(content).toContain('the first 67,108,864 bytes were saved');
      expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
    }, 90_000);

    it('a busy loop is killed at the CPU time limit', async () => {
      const { content, details } = await worker.run(
        'while :; do :; done',
        context({ maxCpuSeconds: 1 }),
        30_000,
      );
      expect(details.limitExceeded?.limit).toBe('cpu');
      expect(content).toContain('Killed: CPU time limit 1 s');
    });

    it('a command writing past the home quota is killed', async () => {
      const { content, details } = await worker.run(
        'dd if=/dev/zero of=big bs=1M count=200 2>/dev/null; sleep 30',
        context({ maxHomeBytes: 16 * 1024 * 1024 }),
        30_000,
      );
      expect(details.limitExceeded?.limit).toBe('disk');
      expect(content).toContain('Killed: disk quota');
      rmSync(path.join(home, 'big'), { force: true });
    });

    it('open files per process are limited', async () => {
      const { content } = await worker.run(
        'ulimit -Sn; ulimit -Hn; ulimit -n 100000 || echo cannot-raise',
        context({ maxOpenFiles: 64 }),
      );
      expect(content).toMatch(/^64\n64\n/);
      expect(content).toContain('cannot-raise');
    });

    it('cut outputs are kept up to maxSavedOutputs, the oldest removed', async () => {
      for (let round = 0; round < 4; round += 1) {
        await worker.run('seq 1 20000', context({ maxOutputBytes: 1024, maxSavedOutputs: 2 }));
      }
      const saved = readdirSync(path.join(home, '.switchyard', 'command-output'));
      expect(saved).toHaveLength(2);
    });
  });

  it('npm, git and python3 still work', async () => {
    const { content, details } = await worker.run(
      [
        'npm init -y >/dev/null && node -p "require(\'./package.json\').name"',
        'git init -q repo && cd repo && echo hello > a.txt && git add a.txt',
        'git -c user.email=ada@example.com -c user.name=Ada commit -qm first && git log --oneline | wc -l',
        "cd .. && python3 -c \"import json, sqlite3; print(json.dumps({'python': sqlite3.sqlite_version != ''}))\"",
      ].join(' && '),
      context(),
      60_000,
    );
    expect(details.exitCode).toBe(0);
    expect(content).toContain('ada');
    expect(content).toMatch(/^1$/m);
    expect(content).toContain('{"python": true}');
  });
});

describe.each(workers)('descriptors a worker running as $who inherited', ({ uid }) => {
  it('never reach a command: only 0 to 2 are open, in the command and in its init', async () => {
    const base = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'switchyard-fds-'));
    const home = path.join(base, 'home');
    mkdirSync(home);
    chmodSync(base, 0o755);
    if (uid !== undefined) chownSync(home, uid, uid);
    const secret = `secret-${randomUUID()}`;
    writeFileSync(path.join(base, 'hidden.txt'), secret);
    const hostFile = path.join(base, 'host.txt');
    writeFileSync(hostFile, '');
    const reading = openSync(path.join(base, 'hidden.txt'), 'r');
    const writing = openSync(hostFile, 'w');
    // Descriptors 33 and 34 of the worker, as a launcher's `33<hidden 34>host` would leave them
    // (low ones such as 9 may be taken over by Node's own start-up).
    const worker = CommandWorkerProcess.start({ uid, inherit: { 33: reading, 34: writing } });
    try {
      const { content, details } = await worker.run(
        [
          'echo SELF $(ls /proc/self/fd)',
          'echo INIT $(ls /proc/1/fd)',
          'cat <&33 || echo fd33-closed',
          'echo planted >&34 || echo fd34-closed',
          'cat /proc/1/fd/33 || echo init-fd33-closed',
        ].join('; '),
        { home, sandbox: 'required' },
      );
      expect(details.sandboxed).toBe(true);
      expect(content).not.toContain(secret);
      expect(content).toContain('fd33-closed');
      expect(content).toContain('fd34-closed');
      expect(content).toContain('init-fd33-closed');
      // `ls` has its own descriptor 3 open on the folder it lists; the init holds 3, its report pipe.
      const listed = (label: string) =>
        (/^(SELF|INIT) (.*)$/m.exec(content.slice(content.indexOf(label)))?.[2] ?? '').split(' ').map(Number);
      expect(listed('SELF').every((fd) => fd <= 3)).toBe(true);
      expect(listed('INIT').every((fd) => fd <= 3)).toBe(true);
      expect(readFileSync(hostFile, 'utf8')).toBe('');
      // Unconfined, the same command reads and writes through them: the probe is a real one.
      const unconfined = await worker.run('cat <&33; echo planted >&34', { home, sandbox: 'off' });
      expect(unconfined.content).toContain(secret);
      expect(readFileSync(hostFile, 'utf8')).toBe('planted\n');
    } finally {
      await worker.stop();
      closeSync(reading);
      closeSync(writing);
      rmSync(base, { recursive: true, force: true });
    }
  });
});

it('leaves no process behind after the attacks', () => {
  expect(processesWith('bomb')).toEqual([]);
});
