import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type FakeResponsesServer, startFakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { calcStdioServer, installCalcSkill } from './__fixtures__/mcp-fixture';
import { expectSucceeded, runCli } from './__fixtures__/run-cli';

let root: string;
let fake: FakeResponsesServer;
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-cli-'));
  fake = await startFakeResponsesServer({ script: [] });
});

afterEach(async () => {
  // Fails the test whose step function threw or that left steps unplayed.
  expect(fake.errors).toEqual([]);
  expect(fake.remaining).toBe(0);
});

afterAll(async () => {
  await fake?.close();
  await rm(root, { recursive: true, force: true });
});

/** A fresh working directory holding `switchyard.config.json`. */
async function workspace(config: Record<string, unknown>): Promise<string> {
  count += 1;
  const cwd = await mkdtemp(path.join(root, `w${count}-`));
  await writeFile(path.join(cwd, 'switchyard.config.json'), JSON.stringify(config));
  return cwd;
}

const endpoint = () => ({ OPENAI_BASE_URL: fake.baseURL, SWITCHYARD_MODEL: 'scripted' });
const computerOnly = { categories: { computer: { homeRoot: 'homes' } } };

/** The events `switchyard run --json` printed, one JSON object a line. */
function jsonEvents(stdout: string): Array<{ type: string; [key: string]: unknown }> {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
}

describe('switchyard run: progress', () => {
  it('prints each call as a start line and its completed label, the streamed text and a summary', async () => {
    const cwd = await workspace(computerOnly);
    fake.reset([
      {
        text: 'Writing the file now.',
        functionCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' } }],
      },
      toolCallStep('run_command', { command: 'cat hello.txt' }),
      { text: 'The file says hi.', usage: { inputTokens: 100, outputTokens: 7 } },
    ]);
    const run = await runCli(['run', 'Write hello.txt and show it'], { cwd, env: endpoint() });
    expectSucceeded(run);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Writing the file now.');
    // write_file may change files: its running call is marked destructive.
    expect(lines[1]).toBe('… Writing hello.txt [destructive]');
    expect(lines[2]).toMatch(/^✓ Wrote 1 line to hello\.txt \(\d+ ms\)$/);
    expect(lines[3]).toBe('… Running `cat hello.txt` [destructive]');
    expect(lines[4]).toMatch(/^✓ Command exited 0 after .* \(\d+ ms\)$/);
    expect(lines[5]).toBe('The file says hi.');
    expect(lines[6]).toMatch(
      /^✓ completed · 3 iterations · 2 tool calls · [\d,]+ tokens \([\d,]+ in, [\d,]+ out\) · [\d.]+ m?s$/,
    );
    // No spinner redraws on a pipe.
    expect(run.stdout).not.toContain('\x1b[');
    expect(await readFile(path.join(cwd, 'homes/main/hello.txt'), 'utf8')).toBe('hi\n');
    expect(fake.requests[0]?.body.model).toBe('scripted');
    expect(fake.requests[2]?.functionCallOutputs.at(-1)?.output).toMatch(/hi/);
  });

  it('shows a failed call with why, and the turn goes on', async () => {
    const cwd = await workspace(computerOnly);
    fake.reset([toolCallStep('read_file', { path: '../../etc/passwd' }), { text: 'I may not read that.' }]);
    const run = await runCli(['run', 'read it', '--agent', 'ada'], { cwd, env: endpoint() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\n✗ .*\(\d+ ms\): tool-error: .*outside/);
    expect(run.stdout).toMatch(/✓ completed · 2 iterations · 1 tool call \(1 failed\)/);
    expect(existsSync(path.join(cwd, 'homes/ada'))).toBe(true);
  });

  it('--json prints the event stream as JSON lines', async () => {
    const cwd = await workspace(computerOnly);
    fake.reset([toolCallStep('list_files', { pattern: '*' }), { text: 'Empty home.' }]);
    const run = await runCli(['run', 'list', '--json'], { cwd, env: endpoint() });
    expect(run.code).toBe(0);
    const events = jsonEvents(run.stdout);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('turn-start');
    expect(types.at(-1)).toBe('turn-end');
    // The last line carries the turn's final text: no need to join the deltas.
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed', output: 'Empty home.' });
    expect(types).toContain('text-delta');
    // A call's start says whether the tool only reads or may destroy something.
    expect(events.find((event) => event.type === 'tool-call-start')).toMatchObject({
      name: 'list_files',
      isReadOnly: true,
      isDestructive: false,
    });
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({
      name: 'list_files',
      outcome: 'completed',
      isError: false,
    });
    expect(events.at(-1)).toMatchObject({ status: 'completed', iterations: 2 });
  });

  it('--json names a failed call in its outcome alone: a tool error result is tool-error', async () => {
    const cwd = await workspace(computerOnly);
    fake.reset([
      {
        functionCalls: [
          { name: 'read_file', arguments: { path: '../../etc/passwd' }, callId: 'outside' },
          { name: 'read_file', arguments: { path: 5 }, callId: 'invalid' },
          { name: 'list_files', arguments: { pattern: '*' }, callId: 'listed' },
        ],
      },
      { text: 'I may not read that.' },
    ]);
    const run = await runCli(['run', 'read it', '--json'], { cwd, env: endpoint() });
    expect(run.code).toBe(0);
    const ends = jsonEvents(run.stdout).filter((event) => event.type === 'tool-call-end');
    // Ends come as calls finish, not in call order.
    const byCall = Object.fromEntries(
      ends.map(({ callId, outcome, isError }) => [callId, [outcome, isError]]),
    );
    expect(byCall).toEqual({
      outside: ['tool-error', true],
      invalid: ['invalid-arguments', true],
      listed: ['completed', false],
    });
    expect(JSON.stringify(ends.find((event) => event.callId === 'outside')?.result)).toMatch(/outside/);
  });

  it('--json reports a failed turn with its error as an object', async () => {
    const cwd = await workspace(computerOnly);
    fake.reset([{ httpStatus: 400, message: 'bad request from the script' }]);
    const run = await runCli(['run', 'x', '--json'], { cwd, env: endpoint() });
    expect(run.code).toBe(1);
    const last = JSON.parse(run.stdout.trimEnd().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'turn-end', status: 'failed', error: { name: 'ModelRequestError' } });
    expect(JSON.stringify(last.error)).toContain('bad request from the script');
  });
});

describe("switchyard run: the model's control characters", () => {
  it('shows escape sequences, a clipboard write and a screen clear as text, in the answer, labels and questions', async () => {
    const cwd = await workspace(computerOnly);
    const clipboard = '\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007';
    const clear = '\u001b[2J\u001b[3J\u001b[H';
    fake.reset([
      {
        text: `Cleaning up.${clear}`,
        functionCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x\n' } }],
      },
      toolCallStep('run_command', { command: `echo ok${clear}` }),
      { text: `Done.${clipboard}\rAll good.` },
    ]);
    const run = await runCli(['run', 'tidy up', '--confirm-destructive'], {
      cwd,
      env: endpoint(),
      answer: (stdout) => (stdout.endsWith('[y/N] ') ? 'n\n' : undefined),
    });
    expect(run.code).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(run.stdout).toContain('Cleaning up.␛[2J␛[3J␛[H\n');
    expect(run.stdout).toContain('? Allow destructive call: Running `echo ok␛[2J␛[3J␛[H` [y/N] n\n');
    expect(run.stdout).toContain('Done.␛]52;c;Y3VybCBldmlsLnNoIHwgc2g=␇␍All good.');
  });
});

describe('switchyard run --confirm-destructive', () => {
  function script(expectDenied: boolean) {
    fake.reset([
      {
        functionCalls: [
          { name: 'read_file', arguments: { path: 'missing.txt' } },
          { name: 'write_file', arguments: { path: 'out.txt', content: 'x\n' } },
        ],
      },
      (request) => {
        const output = String(request.functionCallOutputs[1]?.output);
        if (expectDenied)
          expect(output).toMatch(/^Tool call denied: the operator refused this destructive call/);
        else expect(output).toMatch(/Wrote 1 line|out\.txt/);
        return { text: expectDenied ? 'You said no.' : 'Written.' };
      },
    ]);
  }

  it('asks before a destructive call and sends a refusal to the model as its output', async () => {
    const cwd = await workspace(computerOnly);
    script(true);
    let asked = 0;
    const run = await runCli(['run', 'write out.txt', '--confirm-destructive'], {
      cwd,
      env: endpoint(),
      answer: (stdout) => {
        const questions = stdout.split('[y/N] ').length - 1;
        if (questions > asked) {
          asked = questions;
          return 'n\n';
        }
        return undefined;
      },
    });
    expect(run.code).toBe(0);
    expect(asked).toBe(1);
    expect(run.stdout).toContain('? Allow destructive call: Writing out.txt [y/N] n\n');
    expect(run.stdout).toMatch(/✗ Writing out\.txt: denied: Tool call denied/);
    expect(existsSync(path.join(cwd, 'homes/main/out.txt'))).toBe(false);
  });

  it('runs the call on y', async () => {
    const cwd = await workspace(computerOnly);
    script(false);
    const run = await runCli(['run', 'write out.txt', '--confirm-destructive'], {
      cwd,
      env: endpoint(),
      answer: (stdout) => (stdout.endsWith('[y/N] ') ? 'y\n' : undefined),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('? Allow destructive call: Writing out.txt [y/N] y\n');
    expect(await readFile(path.join(cwd, 'homes/main/out.txt'), 'utf8')).toBe('x\n');
  });
});

describe('switchyard run: configuration', () => {
  it('says exactly which variable to set when no model endpoint is configured', async () => {
    const cwd = await workspace(computerOnly);
    const run = await runCli(['run', 'hello'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('OPENAI_API_KEY: no model endpoint is configured. Set OPENAI_API_KEY');
    const noModel = await runCli(['run', 'hello'], { cwd, env: { OPENAI_BASE_URL: fake.baseURL } });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('SWITCHYARD_MODEL: no model is configured. Set SWITCHYARD_MODEL');
  });

  it('names the field of a configuration error', async () => {
    const cwd = await workspace({ categories: { web: { search: { provider: 'bing' } } } });
    const run = await runCli(['run', 'hello'], { cwd, env: endpoint() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/switchyard\.config\.json: categories\.web\.search\.provider: must be one of/);
  });

  it("refuses to start with categories.computer.sandbox 'required' where bubblewrap cannot sandbox commands", async () => {
    const cwd = await workspace({ categories: { computer: { homeRoot: 'homes', sandbox: 'required' } } });
    fake.reset([]);
    // No bwrap on this PATH: the worker looks for bubblewrap on its own PATH.
    const run = await runCli(['run', 'hello'], { cwd, env: { ...endpoint(), PATH: '/nonexistent' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "categories.computer.sandbox: is 'required' but commands cannot be sandboxed here: bwrap (bubblewrap) is not installed",
    );
    expect(fake.requests).toHaveLength(0);
  });

  it("warns once at start-up when categories.computer.sandbox is 'auto' and bubblewrap cannot sandbox commands", async () => {
    const cwd = await workspace(computerOnly);
    fake.reset([{ text: 'Hello.' }]);
    const run = await runCli(['run', 'hello'], { cwd, env: { ...endpoint(), PATH: '/nonexistent' } });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'switchyard: warning: commands run without a sandbox: bwrap (bubblewrap) is not installed: no bwrap on PATH ' +
        "(categories.computer.sandbox is 'auto'; 'required' refuses to start without one, 'off' silences this)\n",
    );
    expect(run.stdout).toContain('Hello.');
  });

  it('refuses bad usage with the command’s usage text', async () => {
    const run = await runCli(['run'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("switchyard: missing required argument 'prompt'");
    expect(run.stderr).toContain('switchyard run --help');
  });
});

describe('Skills left out', () => {
  it('switchyard run and switchyard tools name each broken Skill with why, and the turn runs with the rest', async () => {
    const cwd = await workspace(computerOnly);
    const skill = async (folder: string, text: string) => {
      await mkdir(path.join(cwd, 'homes/main/skills', folder), { recursive: true });
      await writeFile(path.join(cwd, 'homes/main/skills', folder, 'SKILL.md'), text);
    };
    await skill('good', '---\nname: good\ndescription: Works.\n---\n');
    await skill(
      'aliases',
      `---\nname: aliases\ndescription: &d A.\nlist: [${Array(1000).fill('*d').join(', ')}]\n---\n`,
    );
    // A folder name a model chose, with a screen clear in it.
    await skill('\u001b[2Jx', '---\nname: x\ndescription: X.\n---\n');
    fake.reset([
      (request) => {
        expect(String(request.body.instructions)).toMatch(
          /<skill-description-[0-9a-f]{16} skill="good">\nWorks\./,
        );
        return { text: 'Hello.' };
      },
    ]);
    const run = await runCli(['run', 'hi'], { cwd, env: endpoint() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Hello\.\n✓ completed/);
    expect(run.stderr).toContain(
      'switchyard: skill left out: skills/aliases/SKILL.md:2: the front matter uses 1000 YAML aliases; at most 100 are allowed\n',
    );
    expect(run.stderr).toContain('switchyard: skill left out: skills/␛[2Jx/SKILL.md:');
    expect(run.stderr).not.toContain('\u001b');
    const tools = await runCli(['tools'], { cwd, env: {} });
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('\nSkills (1): good.\n');
    expect(tools.stderr).toContain(
      'switchyard: skill left out: skills/aliases/SKILL.md:2: the front matter uses 1000',
    );
    const json = JSON.parse((await runCli(['tools', '--json'], { cwd, env: {} })).stdout) as {
      skills: { loaded: string[]; skipped: Array<{ file: string }> };
    };
    expect(json.skills.loaded).toEqual(['good']);
    expect(json.skills.skipped.map((problem) => problem.file)).toEqual([
      'skills/\u001b[2Jx/SKILL.md',
      'skills/aliases/SKILL.md',
    ]);
  });
});

describe('MCP-backed Skills', () => {
  it('switchyard run: the model calls the Skill’s server with mcporter through run_command', async () => {
    const cwd = await workspace(computerOnly);
    await installCalcSkill(path.join(cwd, 'homes/main'));
    fake.reset([
      (request) => {
        // The projected Skill tells the model how to reach its server.
        expect(String(request.body.instructions)).toContain('mcporter call calc.<tool> key=value');
        return toolCallStep('run_command', { command: 'mcporter call calc.add a=2 b=3' });
      },
      (request) => {
        expect(request.functionCallOutputs[0]?.output).toMatch(/\b5\b/);
        return { text: 'Two and three make five.' };
      },
    ]);
    const run = await runCli(['run', 'add two and three'], { cwd, env: endpoint() });
    expectSucceeded(run);
    expect(run.stdout).toContain('Two and three make five.');
    // The worker wrote the home's mcporter configuration from the Skill it projected.
    const written = JSON.parse(await readFile(path.join(cwd, 'homes/main/config/mcporter.json'), 'utf8'));
    expect(Object.keys(written.mcpServers)).toEqual(['calc']);
  });

  it('switchyard run: a removed Skill’s server is no longer callable through mcporter', async () => {
    const cwd = await workspace(computerOnly);
    const home = path.join(cwd, 'homes/main');
    await installCalcSkill(home);
    const callCalc = () => toolCallStep('run_command', { command: 'mcporter call calc.add a=2 b=3' });
    fake.reset([callCalc, { text: 'added' }]);
    expectSucceeded(await runCli(['run', 'add two and three'], { cwd, env: endpoint() }));
    expect(fake.requests[1]?.functionCallOutputs[0]?.output).toMatch(/\b5\b/);
    // The Skill goes; its server must go with it, although no Skill with servers is left.
    await rm(path.join(home, 'skills/calc'), { recursive: true });
    fake.reset([callCalc, { text: 'no calc' }]);
    expectSucceeded(await runCli(['run', 'add two and three again'], { cwd, env: endpoint() }));
    expect(String(fake.requests[1]?.functionCallOutputs[0]?.output)).toContain("Unknown MCP server 'calc'");
    const written = JSON.parse(await readFile(path.join(home, 'config/mcporter.json'), 'utf8'));
    expect(written).toEqual({ mcpServers: {}, imports: [] });
  });
});

describe('MCP servers with deferred tools', () => {
  const mcpConfig = {
    categories: {
      computer: { homeRoot: 'homes' },
      mcp: { servers: { calc: { command: process.execPath, args: [calcStdioServer], deferLoading: true } } },
    },
  };

  it('finds a deferred MCP tool through Tool Search and calls it on the real stdio server', async () => {
    const cwd = await workspace(mcpConfig);
    fake.reset([
      (request) => {
        expect(request.toolNames).toContain('tool_search');
        expect(request.toolNames).not.toContain('calc.add');
        return toolCallStep('tool_search', { query: 'add two numbers', limit: 1 });
      },
      (request) => {
        expect(request.toolNames).toContain('calc.add');
        return { functionCalls: [{ namespace: 'calc', name: 'add', arguments: { a: 2, b: 3 } }] };
      },
      (request) => {
        expect(JSON.stringify(request.functionCallOutputs.at(-1)?.output)).toContain('5');
        return { text: '2 + 3 = 5' };
      },
    ]);
    const run = await runCli(['run', 'What is 2 + 3?'], { cwd, env: endpoint() });
    expect(run.code).toBe(0);
    expect(
      run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('switchyard: MCP tool ')),
    ).toEqual([]);
    expect(run.stdout).toContain('2 + 3 = 5');
    expect(run.stdout).toMatch(/✓ completed · 3 iterations · 2 tool calls/);
    // The tools the model is not offered are named at start-up, each with why.
    expect(run.stderr).toMatch(/^switchyard: MCP tool calc\.research left out: .*task/m);
    expect(run.stderr).toMatch(/^switchyard: MCP tool calc\.broken_schema left out: /m);
  });

  it('switchyard tools lists each tool with its category, mode, loading and bytes, and totals', async () => {
    const cwd = await workspace(mcpConfig);
    const run = await runCli(['tools'], { cwd, env: {} });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Tools the next text turn of agent main would send (Tool Search: native):');
    expect(lines[2]).toMatch(/^category\s+tool\s+mode\s+loading\s+access\s+bytes$/);
    expect(lines[3]).toMatch(/^todo\s+update_todos\s+strict\s+eager\s+writes\s+[\d,]+ B$/);
    expect(lines[4]).toMatch(/^computer\s+run_command\s+strict\s+eager\s+destructive\s+[\d,]+ B$/);
    expect(lines[5]).toMatch(/^computer\s+read_file\s+strict\s+eager\s+read-only\s+[\d,]+ B$/);
    expect(run.stdout).toMatch(
      /\nmcp\s+calc\.add\s+non-strict: external schema sent unchanged\s+deferred\s+\S+\s+[\d,]+ B\n/,
    );
    expect(run.stdout).toMatch(
      /\n\d+ tools \(\d+ strict, \d+ non-strict; \d+ deferred; \d+ destructive\): [\d,]+ B of schemas/,
    );
    expect(run.stdout).toMatch(
      /\nCommands \(run_command\): sandboxed \(bubblewrap \d+\.\d+\.\d+, network none\)\.\n/,
    );
    const withSearch = await runCli(['tools'], { cwd, env: { OPENAI_BASE_URL: fake.baseURL } });
    expect(withSearch.stdout).toContain('(Tool Search: client)');
    expect(withSearch.stdout).toContain('plus the tool_search function');
    const unconfined = await runCli(['tools'], { cwd, env: { PATH: '/nonexistent' } });
    expect(unconfined.stdout).toContain(
      "\nCommands (run_command): not sandboxed (mode 'auto'): bwrap (bubblewrap) is not installed: no bwrap on PATH.\n",
    );
  });
});
