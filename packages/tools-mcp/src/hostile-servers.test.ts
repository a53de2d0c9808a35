// Issue 39: every byte an MCP server sends is under a limit. A hostile server (hand-written JSON-RPC,
// over stdio and over streamable HTTP on real sockets, in its own process) tries each attack; the
// client (this process) must stay within 100 MB of RSS growth, never hold its event loop past 250 ms,
// and give the turn a clear error naming the server and the limit.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AgentToolResult, AnyWorkerAgentTool } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { hostileHttpServer, hostileStdioServer } from './__fixtures__/fixture-paths';
import { ATTACK_BOUNDS, type AttackMeasurement, measureAttack } from './__fixtures__/measure-attack';
import { runOnFakeModel } from './__fixtures__/run-on-fake-model';
import { CALL_CONTEXT, resultText } from './__fixtures__/tool-call';
import { connectMcpServers, type McpServers } from './connect-mcp-servers';
import { createMcpTools } from './create-mcp-tools';
import { McpConnectionError } from './errors/mcp-connection-error';
import type { McpServerCommonConfig, McpServerConfig } from './mcp-server-config';

const MiB = 1024 * 1024;

const text = (result: AgentToolResult) => resultText(result, (part) => `[${part.type}]`);

// The loop bound is on what this process held it for (`maxBusyMs`, its main thread's own run time
// between two turns of a 5 ms timer): 250 ms. `monitorEventLoopDelay`'s figure adds the time spent
// waiting for a core, which on a 2-core machine shared with the hostile server and other work reached
// 1.2 s with 128 ms of our own, so it is held to testkit's stall bound. The unbounded client held the
// loop itself for 2 s and more. SHOW_ATTACK_FIGURES=1 prints each attack's figures.
function expectBounded(measured: AttackMeasurement<unknown>): void {
  if (process.env.SHOW_ATTACK_FIGURES) {
    console.log(expect.getState().currentTestName, JSON.stringify({ ...measured, value: undefined }));
  }
  expect(measured.rssGrowthMb).toBeLessThan(ATTACK_BOUNDS.rssGrowthMb);
  expect(measured.maxBusyMs).toBeLessThan(ATTACK_BOUNDS.loopHeldMs);
  expect(measured.maxDelayMs).toBeLessThan(ATTACK_BOUNDS.loopDelayMs);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startHttpServer(attack: string, env: Record<string, string> = {}): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [hostileHttpServer], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, HOSTILE_ATTACK: attack, ...env },
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill();
      await once(child, 'exit');
    }
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the hostile HTTP server exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /PORT (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

type Transport = 'stdio' | 'http';

async function hostileConfig(
  transport: Transport,
  attack: string,
  limits: McpServerCommonConfig = {},
): Promise<McpServerConfig> {
  return transport === 'stdio'
    ? { command: process.execPath, args: [hostileStdioServer], env: { HOSTILE_ATTACK: attack }, ...limits }
    : { url: await startHttpServer(attack), ...limits };
}

async function connect(
  transport: Transport,
  attack: string,
  limits?: McpServerCommonConfig,
): Promise<McpServers> {
  const config = await hostileConfig(transport, attack, limits);
  const servers = await connectMcpServers({ servers: { hostile: config } });
  cleanups.push(() => servers.close());
  return servers;
}

function find(servers: McpServers, name: string): AnyWorkerAgentTool {
  const tool = createMcpTools({ servers }).find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

async function add(servers: McpServers): Promise<string> {
  return text(await find(servers, 'add').execute({ a: 20, b: 22 }, CALL_CONTEXT));
}

async function stats(servers: McpServers): Promise<{ pid: number; received: Record<string, number> }> {
  return JSON.parse(text(await find(servers, 'stats').execute({}, CALL_CONTEXT)));
}

async function serverPid(servers: McpServers): Promise<number> {
  return (await stats(servers)).pid;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each<Transport>(['stdio', 'http'])('a hostile MCP server over %s', (transport) => {
  it('gives a list that never ends one deadline, startupTimeoutMs, for all its pages', async () => {
    const config = await hostileConfig(transport, 'slow-pages', {
      startupTimeoutMs: 1000,
      maxToolListPages: 1000,
    });
    const started = performance.now();
    const error = await connectMcpServers({ servers: { hostile: config } }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^MCP server 'hostile' failed to start: no complete tool list within 1000 ms \(startupTimeoutMs\)/,
    );
  });

  it('refuses an answer over maxMessageBytes as it arrives; the server keeps serving its other tools', async () => {
    const servers = await connect(transport, 'none');
    const pid = await serverPid(servers);
    const measured = await measureAttack(() =>
      find(servers, 'huge_result').execute({ bytes: 8 * MiB }, CALL_CONTEXT),
    );
    expectBounded(measured);
    expect(measured.value).toMatchObject({ isError: true, details: { failure: 'over-budget' } });
    expect(text(measured.value)).toMatch(
      /^The call to hostile\.huge_result failed: MCP server 'hostile' sent .* over its maxMessageBytes of 4194304; it was not read\./,
    );
    // The same process, not a restarted one, answers the next call.
    expect(await add(servers)).toBe('42');
    expect(await serverPid(servers)).toBe(pid);
    expect(servers.status('hostile')).toBe('connected');
  });

  it('ends a message without end within its limit', async () => {
    const servers = await connect(transport, 'none');
    const measured = await measureAttack(() => find(servers, 'endless_message').execute({}, CALL_CONTEXT));
    expectBounded(measured);
    expect(measured.value.isError).toBe(true);
    expect(text(measured.value)).toMatch(/MCP server 'hostile' sent a (message|server-sent event)/);
    expect(text(measured.value)).toContain('maxMessageBytes of 4194304');
    // Over HTTP the answer's stream is cut and the server is untouched; over stdio the stream is the
    // server's only channel, so it is stopped and started again for the next call.
    expect(await add(servers)).toBe('42');
  });

  it('reads at most maxToolListPages pages of a list that never ends', async () => {
    const measured = await measureAttack(() => connect(transport, 'endless-pages'));
    expectBounded(measured);
    const servers = measured.value;
    expect(createMcpTools({ servers }).map((tool) => tool.name)).toContain('add');
    const skipped = servers.skippedTools();
    expect(skipped.at(-1)).toEqual({
      server: 'hostile',
      tool: '*',
      kind: 'over-budget',
      reason:
        "MCP server 'hostile' lists its tools on more than 32 pages (maxToolListPages); the tools of the first 32 pages are offered, the rest were not read.",
    });
    // Each page after the first carried a 512 KiB tool: over maxSchemaBytes, dropped as it was read.
    expect(skipped.filter((entry) => entry.tool.startsWith('padding_'))).toHaveLength(31);
    expect(await add(servers)).toBe('42');
  });

  it('takes at most maxTools of 10,000 tools without holding the event loop', async () => {
    const measured = await measureAttack(() => connect(transport, 'many-tools'));
    expectBounded(measured);
    const servers = measured.value;
    expect(createMcpTools({ servers })).toHaveLength(512);
    // The server's 14 ordinary tools come first, then tool_0, tool_1, ...: the 513th is tool_498.
    expect(servers.skippedTools()).toEqual([
      {
        server: 'hostile',
        tool: 'tool_498',
        kind: 'over-budget',
        reason:
          "MCP server 'hostile' lists more than 512 tools (maxTools); 'tool_498' and every tool after it are left out.",
      },
    ]);
    expect(await add(servers)).toBe('42');
  });

  it('leaves out a 4 MB schema and keeps the other tools', async () => {
    const measured = await measureAttack(() => connect(transport, 'huge-schema'));
    expectBounded(measured);
    const servers = measured.value;
    expect(createMcpTools({ servers }).map((tool) => tool.name)).not.toContain('huge_schema');
    const [skipped] = servers.skippedTools();
    expect(skipped).toMatchObject({ server: 'hostile', tool: 'huge_schema', kind: 'over-budget' });
    expect(skipped?.reason).toMatch(
      /^Tool 'huge_schema' has a definition of \d{7} bytes; .* maxSchemaBytes of 262144\.$/,
    );
    expect(await add(servers)).toBe('42');
  });

  it('refuses images and parts past maxResultBytes, counted as the model would receive them', async () => {
    const servers = await connect(transport, 'none');
    const image = await measureAttack(() => find(servers, 'image').execute({ bytes: 3 * MiB }, CALL_CONTEXT));
    expectBounded(image);
    expect(image.value).toMatchObject({ isError: true, details: { failure: 'over-budget' } });
    expect(text(image.value)).toMatch(
      /^The result of hostile\.image would reach the model with 3145804 bytes beyond its text \(1 image and 1 content parts\), over MCP server 'hostile''s maxResultBytes of 2097152/,
    );
    const parts = await measureAttack(() =>
      find(servers, 'many_parts').execute({ count: 100_000 }, CALL_CONTEXT),
    );
    expectBounded(parts);
    expect(parts.value).toMatchObject({ isError: true, details: { failure: 'over-budget' } });
    expect(text(parts.value)).toContain('(0 images and 100000 content parts)');
    // Within the limit an image passes.
    expect(await find(servers, 'image').execute({ bytes: 1024 }, CALL_CONTEXT)).toMatchObject({
      content: [{ type: 'image', mimeType: 'image/png' }],
    });
  });

  it('passes a storm of progress on to the turn at most every 100 ms, each message cut to 200 characters', async () => {
    const servers = await connect(transport, 'none');
    const messages: number[] = [];
    const measured = await measureAttack(() =>
      find(servers, 'progress_storm').execute(
        { count: 2000 },
        {
          ...CALL_CONTEXT,
          reportProgress: (progress) => {
            messages.push(progress.message?.length ?? 0);
          },
        },
      ),
    );
    expectBounded(measured);
    expect(text(measured.value)).toBe('stormed');
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages.length).toBeLessThan(1 + measured.elapsedMs / 100 + 1);
    expect(Math.max(...messages)).toBe(201);
  });

  it('ends a call kept alive by progress at callDeadlineMs', async () => {
    const servers = await connect(transport, 'none', { callDeadlineMs: 1500, callTimeoutMs: 60_000 });
    let reports = 0;
    const measured = await measureAttack(() =>
      find(servers, 'progress_forever').execute(
        {},
        {
          ...CALL_CONTEXT,
          reportProgress: () => {
            reports += 1;
          },
        },
      ),
    );
    expectBounded(measured);
    // 75 notifications in 1.5 s; at most one every 100 ms reaches the turn.
    expect(reports).toBeGreaterThan(5);
    expect(reports).toBeLessThanOrEqual(16);
    expect(measured.value).toMatchObject({ isError: true, details: { failure: 'timeout' } });
    expect(text(measured.value)).toBe(
      "The call to hostile.progress_forever did not finish within MCP server 'hostile''s callDeadlineMs of 1500 ms, whatever progress it reported; it was cancelled.",
    );
    expect(await add(servers)).toBe('42');
  });
});

describe('a hostile MCP server over stdio', () => {
  it('compiles a small schema of costly shape off the event loop and leaves it out, naming the limit', async () => {
    const measured = await measureAttack(() => connect('stdio', 'costly-schema'));
    expectBounded(measured);
    const servers = measured.value;
    expect(createMcpTools({ servers }).map((tool) => tool.name)).not.toContain('costly_schema');
    expect(servers.skippedTools()).toEqual([
      {
        server: 'hostile',
        tool: 'costly_schema',
        kind: 'over-budget',
        reason: expect.stringMatching(
          // Which limit it meets first depends on the machine's load: the compile time or the nesting.
          /^Invalid tool 'costly_schema': jsonSchema: (its validator's code would nest \d+ blocks deep, over the 256 a schema may compile to|compiling it for validation took more than 2000 ms)$/,
        ),
      },
    ]);
    expect(await add(servers)).toBe('42');
  });

  it('cuts 1 MB of server instructions to 4,000 characters of namespace description, counted with the tools', async () => {
    const servers = await connect('stdio', 'long-instructions', { maxSchemaBytes: 5000 });
    const tools = createMcpTools({ servers });
    expect(tools[0]?.namespaceDescription).toBe(`${'i'.repeat(4000)}…`);
    // 4,003 bytes of description leave room in 5,000 for the first tools only.
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.length).toBeLessThan(9);
    expect(servers.skippedTools().at(-1)?.reason).toContain("MCP server 'hostile''s maxSchemaBytes of 5000");
  });

  it('stops a server whose oversized message answers no request, naming the limit', async () => {
    const servers = await connect('stdio', 'none');
    const measured = await measureAttack(() =>
      find(servers, 'huge_notification').execute({ bytes: 6 * MiB }, CALL_CONTEXT),
    );
    expectBounded(measured);
    expect(measured.value).toMatchObject({ isError: true, details: { failure: 'server-exited' } });
    expect(text(measured.value)).toMatch(
      /^MCP server 'hostile' exited during the call to hostile\.huge_notification \(MCP server 'hostile' sent a message of \d+ bytes, over its maxMessageBytes of 4194304; it was not read, and as it answered no request this client can name, the server was stopped\)/,
    );
    // The next call restarts it.
    expect(await add(servers)).toBe('42');
  });

  it('refuses a message nested 2,000,000 deep before parsing it, and leaves out a structuredContent nested too deep', async () => {
    const servers = await connect('stdio', 'none');
    const measured = await measureAttack(() =>
      find(servers, 'deep_message').execute({ depth: 2_000_000 }, CALL_CONTEXT),
    );
    expectBounded(measured);
    expect(measured.value).toMatchObject({ isError: true, details: { failure: 'over-budget' } });
    expect(text(measured.value)).toContain(
      "MCP server 'hostile' sent a message nested deeper than 256 levels; it was not read",
    );
    // Under the message's limit, over what details keep: the text comes through, the rest is left out.
    const kept = await find(servers, 'deep_structured').execute({ depth: 200 }, CALL_CONTEXT);
    expect(text(kept)).toBe('hi');
    expect(kept.details).toEqual({
      server: 'hostile',
      tool: 'deep_structured',
      structuredContentOmitted: 'nested deeper than 64 levels',
    });
    expect(() => JSON.stringify(kept)).not.toThrow();
    expect(await add(servers)).toBe('42');
  });

  it("passes on a server's own error of code -32000 or -32001 as its error, not as a lost server or a timeout", async () => {
    const servers = await connect('stdio', 'none');
    const pid = await serverPid(servers);
    for (const code of [-32000, -32001, -32603]) {
      const result = await find(servers, 'error_code').execute({ code }, CALL_CONTEXT);
      expect(result, String(code)).toMatchObject({ isError: true });
      expect(text(result)).toContain(`MCP error ${code}: quota exceeded for project x`);
      expect(result.details).not.toMatchObject({ failure: 'server-exited' });
      expect(result.details).not.toMatchObject({ failure: 'timeout' });
    }
    expect(await serverPid(servers)).toBe(pid);
  });

  it('stops a server that leaves what is sent to it unread, or writes lines that are not messages, naming the limit', async () => {
    for (const [tool, limit] of [
      [
        'ping_flood',
        /stopped reading its stdin \(\d+ bytes and \d+ messages sent to it waiting, over 16777216 bytes or 10000 messages\); the server was stopped/,
      ],
      [
        'garbage_forever',
        /wrote more than 1000 lines that are not JSON-RPC messages within 10 s; the server was stopped/,
      ],
    ] as const) {
      // A server of its own each: one that dies twice is not restarted again.
      const servers = await connect('stdio', 'none');
      const measured = await measureAttack(() => find(servers, tool).execute({}, CALL_CONTEXT));
      expectBounded(measured);
      expect(measured.value, tool).toMatchObject({ isError: true, details: { failure: 'server-exited' } });
      expect(text(measured.value)).toMatch(limit);
      // The next call restarts it.
      expect(await add(servers)).toBe('42');
    }
  });

  it('lists once more, not 5,000 times, for a storm of list_changed notifications', async () => {
    const measured = await measureAttack(async () => {
      const servers = await connect('stdio', 'list-changed-storm');
      // Let the storm arrive and the listings it asks for run.
      await pause(1000);
      await servers.refresh();
      return servers;
    });
    expectBounded(measured);
    const { received } = await stats(measured.value);
    // The first listing, at most one running and one waiting when the storm came, and the refresh.
    expect(received['tools/list']).toBeGreaterThanOrEqual(2);
    expect(received['tools/list']).toBeLessThanOrEqual(4);
    expect(await add(measured.value)).toBe('42');
  });
});

describe('a hostile MCP server over streamable HTTP', () => {
  it('refuses a JSON response body over maxMessageBytes as it arrives', async () => {
    const url = await startHttpServer('none', { HOSTILE_HTTP_JSON: '1' });
    const servers = await connectMcpServers({ servers: { hostile: { url } } });
    cleanups.push(() => servers.close());
    const measured = await measureAttack(() =>
      find(servers, 'huge_result').execute({ bytes: 8 * MiB }, CALL_CONTEXT),
    );
    expectBounded(measured);
    expect(measured.value).toMatchObject({ isError: true, details: { failure: 'over-budget' } });
    expect(text(measured.value)).toMatch(
      /^The call to hostile\.huge_result failed: MCP server 'hostile' sent a response body of more than \d+ bytes, over its maxMessageBytes of 4194304; it was not read\./,
    );
    expect(await add(servers)).toBe('42');
  });

  it('cuts a standing event stream whose event never ends and does not reopen it', async () => {
    const measured = await measureAttack(async () => {
      const servers = await connect('http', 'endless-event');
      // The GET stream opens after the handshake and streams without pause meanwhile.
      await pause(2000);
      return servers;
    });
    expectBounded(measured);
    const { received } = await stats(measured.value);
    expect(received.GET).toBe(1);
    expect(await add(measured.value)).toBe('42');
    expect(measured.value.status('hostile')).toBe('connected');
  });
});

describe('a turn calling a hostile MCP server', () => {
  it('gets a clear error it can act on, and its next call works', async () => {
    const servers = await connect('http', 'none');
    const script = [
      {
        functionCalls: [
          { name: 'huge_result', namespace: 'hostile', arguments: { bytes: 8 * MiB }, callId: 'c1' },
        ],
      },
      { functionCalls: [{ name: 'add', namespace: 'hostile', arguments: { a: 20, b: 22 }, callId: 'c2' }] },
      { text: 'done' },
    ];
    const tools = createMcpTools({ servers });
    await runOnFakeModel(
      { script, tools, input: 'Fetch the big result, then add.' },
      async ({ run, fake }) => {
        expect((await run.result()).status).toBe('completed');
        const refused = JSON.stringify(fake.requests[1]?.functionCallOutputs[0]?.output);
        expect(refused).toContain(
          "The call to hostile.huge_result failed: MCP server 'hostile' sent a server-sent event",
        );
        expect(refused).toContain('over its maxMessageBytes of 4194304');
        expect(fake.requests[2]?.functionCallOutputs.at(-1)?.output).toEqual([
          { type: 'input_text', text: '42' },
        ]);
      },
    );
  });
});
