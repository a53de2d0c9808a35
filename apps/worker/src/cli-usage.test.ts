import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runCli } from './__fixtures__/run-cli';
import { repositoryRoot } from './daemon/__fixtures__/serve-process';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let root: string;
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-cli-usage-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh, empty working directory, with `switchyard.config.json` when a configuration is given. */
async function folder(config?: Record<string, unknown>): Promise<string> {
  count += 1;
  const cwd = path.join(root, `f${count}`);
  await mkdir(cwd);
  if (config !== undefined) await writeFile(path.join(cwd, 'switchyard.config.json'), JSON.stringify(config));
  return cwd;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a shell pipeline; resolves with its output and the exit code of each command in it. */
function pipeline(script: string, env: Record<string, string>, cwd: string) {
  return new Promise<{ stdout: string; stderr: string; statuses: number[] }>((resolve, reject) => {
    // stdin not a socket and --norc: bash reads no start-up file of the machine's user.
    const child = spawn(
      'bash',
      ['--norc', '--noprofile', '-c', `${script}; echo "statuses: \${PIPESTATUS[*]}" >&2`],
      {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      const statuses = (/statuses: ([\d ]+)/.exec(stderr)?.[1] ?? '').trim().split(' ').map(Number);
      resolve({ stdout, stderr: stderr.replace(/statuses: [\d ]+\n?/, ''), statuses });
    });
  });
}

describe('switchyard --help, --version and each command’s usage', () => {
  it.each([
    ['--help'],
    ['-h'],
    ['help'],
  ])('%s prints the usage of every command and exits 0', async (flag) => {
    const run = await runCli([flag], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Usage: switchyard \[options\] \[command\]/);
    for (const command of [
      'run',
      'tools',
      'schedules',
      'workflows',
      'turns',
      'brain',
      'approvals',
      'serve',
      'demo',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    }
    expect(run.stdout).toContain('2 bad usage or configuration');
  });

  it.each([['--version'], ['-v']])('%s prints the version', async (flag) => {
    const run = await runCli([flag], { cwd: root });
    expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each([
    [['run', '--help'], 'switchyard run [options] <prompt>', '--confirm-destructive'],
    [['tools', '-h'], 'switchyard tools [options]', '--json'],
    [['schedules', 'list', '--help'], 'switchyard schedules list [options]', '--all'],
    [['workflows', 'list', '--help'], 'switchyard workflows list [options]', '--agent'],
    [['workflows', 'show', '--help'], 'switchyard workflows show [options] <id>', '--config'],
    [['turns', 'list', '--help'], 'switchyard turns list [options]', '--agent'],
    [['turns', 'show', '--help'], 'switchyard turns show [options] <id>', '--config'],
    [['brain', 'list', '--help'], 'switchyard brain list [options]', '--all'],
    [['brain', 'show', '--help'], 'switchyard brain show [options] <id>', '--config'],
    [['brain', 'search', '--help'], 'switchyard brain search [options] <query>', '--tag <tag>'],
    [['approvals', 'list', '--help'], 'switchyard approvals list [options]', '--all'],
    [['approvals', 'allow', '--help'], 'switchyard approvals allow [options] <id>', '--reason'],
    [['approvals', 'deny', '--help'], 'switchyard approvals deny [options] <id>', '--reason'],
    [['serve', '--help'], 'switchyard serve [options]', '--poll-seconds'],
    [['help', 'serve'], 'switchyard serve [options]', '--grace-ms'],
    [['demo', '--help'], 'switchyard demo [options]', '--json'],
  ])('%j prints that command’s usage and exits 0', async (args, usage, option) => {
    const run = await runCli(args, { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: ${usage}`);
    expect(run.stdout).toContain(option);
  });
});

describe('usage and configuration errors exit 2, naming the flag or the field', () => {
  it.each([
    [['serve', '--port', 'abc'], "option '--port <port>' argument 'abc' is invalid"],
    [['serve', '--bogus'], "unknown option '--bogus'"],
    [['serve', 'extra'], 'too many arguments'],
    [['bogus'], "unknown command 'bogus'"],
    [['run'], "missing required argument 'prompt'"],
    [['run', ' '], 'run takes one non-empty prompt'],
    [['turns', 'delete', 'x'], "unknown command 'delete'"],
    [['brain', 'search', ' '], 'brain search takes one non-empty query'],
    [['brain', 'search', 'x', '--limit', '0'], "option '--limit <n>' argument '0' is invalid"],
    [['brain', 'forget', 'x'], "unknown command 'forget'"],
    [['approvals', 'deny', 'approval_x'], "required option '--reason <text>' not specified"],
  ])('%j', async (args, message) => {
    const run = await runCli(args, {
      cwd: root,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', SWITCHYARD_MODEL: 'm' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`switchyard: ${message}`);
    expect(run.stderr).toMatch(/--help shows its usage/);
  });

  it('a --health-port out of range exits 2 naming the flag', async () => {
    const run = await runCli(['serve', '--health-port', '70000'], {
      cwd: root,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', SWITCHYARD_MODEL: 'm' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--health-port: expected an integer from 0 to 65535, got 70000');
  });

  it('switchyard alone prints the usage on stderr and exits 2', async () => {
    const run = await runCli([], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: switchyard');
  });

  it('a bearer token under 16 characters', async () => {
    const run = await runCli(['serve', '--port', '0'], {
      cwd: await folder(),
      env: {
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        SWITCHYARD_MODEL: 'm',
        SWITCHYARD_SERVE_TOKEN: 'short',
      },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SWITCHYARD_SERVE_TOKEN: the bearer token must be at least 16 characters');
  });

  it.each([
    ['run', 'hello'],
    ['serve', '--port', '0'],
    ['tools'],
  ])('a secret-looking variable in categories.computer.env: %j names the field with its full path and the file', async (...args) => {
    const cwd = await folder({ categories: { computer: { env: ['NODE_ENV', 'GITHUB_TOKEN'] } } });
    const run = await runCli(args, {
      cwd,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', SWITCHYARD_MODEL: 'm' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `switchyard: Invalid ${path.join(cwd, 'switchyard.config.json')}: categories.computer.env[1]: GITHUB_TOKEN looks like a secret`,
    );
  });

  it('reports every missing setting at once: the API key and the model', async () => {
    const run = await runCli(['run', 'hello'], { cwd: await folder() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('- OPENAI_API_KEY: no model endpoint is configured');
    expect(run.stderr).toContain('- SWITCHYARD_MODEL: no model is configured');
  });

  it('names an endpoint it cannot reach by its URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const cwd = await folder({ model: { maxRetries: 0 }, categories: {} });
    const run = await runCli(['run', 'hello'], { cwd, env: { OPENAI_BASE_URL: url, SWITCHYARD_MODEL: 'm' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`(endpoint ${url}`);
  });
});

describe('switchyard as a finished command-line tool', () => {
  it('exits 0 quietly when its reader goes away (switchyard tools | head -1), leaving no temporary folder', async () => {
    const cwd = await folder({ categories: { computer: {}, web: { fetch: {} } } });
    const tmp = await mkdtemp(path.join(root, 'tmp-'));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: tmp };
    // A reader that takes one line after a moment, and one that leaves before anything is written:
    // either way the CLI's later writes meet a closed pipe (EPIPE).
    const result = await pipeline(
      `"${process.execPath}" "${cliPath}" tools | (sleep 0.3; head -1)`,
      env,
      cwd,
    );
    expect(result.stdout).toBe('Tools the next text turn of agent main would send (Tool Search: native):\n');
    expect(result.stderr).toBe('');
    expect(result.statuses).toEqual([0, 0]);
    const gone = await pipeline(`"${process.execPath}" "${cliPath}" tools --json | true`, env, cwd);
    expect(gone.stderr).toBe('');
    expect(gone.statuses).toEqual([0, 0]);
    expect(await readdir(tmp)).toEqual([]);
  });

  it('read-only commands create nothing in the working folder', async () => {
    const cwd = await folder();
    for (const args of [
      ['tools'],
      ['turns', 'list'],
      ['schedules', 'list'],
      ['workflows', 'list'],
      ['brain', 'list'],
      ['brain', 'search', 'deploys'],
      ['approvals', 'list'],
    ]) {
      const run = await runCli(args, { cwd });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    expect(await readdir(cwd)).toEqual([]);
    expect((await runCli(['turns', 'list'], { cwd })).stdout).toBe('Agent main has no recorded turns.\n');
    expect((await runCli(['brain', 'search', 'deploys'], { cwd })).stdout).toBe(
      'No page of agent main matches "deploys".\n',
    );
    expect((await runCli(['approvals', 'list'], { cwd })).stdout).toBe('No pending approvals.\n');
  });

  it('tools --json prints the manifest as JSON, with each tool’s access', async () => {
    const run = await runCli(['tools', '--json'], { cwd: await folder() });
    expect(run.code).toBe(0);
    const manifest = JSON.parse(run.stdout) as {
      agent: string;
      tools: Array<{
        key: string;
        category: string;
        readOnly: boolean;
        destructive: boolean;
        strict: boolean;
      }>;
      requestToolsBytes: number;
    };
    expect(manifest.agent).toBe('main');
    expect(manifest.tools.find((tool) => tool.key === 'run_command')).toMatchObject({
      category: 'computer',
      readOnly: false,
      destructive: true,
    });
    expect(manifest.tools.find((tool) => tool.key === 'read_file')).toMatchObject({
      readOnly: true,
      destructive: false,
    });
    expect(manifest.requestToolsBytes).toBeGreaterThan(0);
  });

  it('is a `switchyard` command once the worker is linked (its bin on the PATH)', async () => {
    const bin = await mkdtemp(path.join(root, 'bin-'));
    // What `npm link` / `pnpm link` make: a symlink to the package's bin.
    await symlink(cliPath, path.join(bin, 'switchyard'));
    const result = await pipeline(
      'switchyard --version && switchyard tools --json | head -c 1',
      {
        PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      },
      await folder(),
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${VERSION}\n{`);
  });

  it('is `pnpm switchyard` from the repository, run in the folder pnpm was called from', async () => {
    const cwd = await folder();
    const result = await pipeline(
      `pnpm --dir "${repositoryRoot}" --silent switchyard --version && pnpm --dir "${repositoryRoot}" --silent switchyard turns list`,
      {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '',
      },
      cwd,
    );
    expect(result.stdout).toBe(`${VERSION}\nAgent main has no recorded turns.\n`);
    expect(await readdir(cwd)).toEqual([]);
  });
});
