import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcHttpServer } from './__fixtures__/fixture-paths';
import { CALL_CONTEXT, resultText } from './__fixtures__/tool-call';
import { connectMcpServers, type McpServers } from './connect-mcp-servers';
import { createMcpTools } from './create-mcp-tools';

async function startHttpServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [calcHttpServer], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the HTTP fixture exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /PORT (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
  });
  return { child, port };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill();
    await once(child, 'exit');
  }
}

let child: ChildProcess;
let servers: McpServers;

beforeAll(async () => {
  const started = await startHttpServer();
  child = started.child;
  const { port } = started;
  servers = await connectMcpServers({
    servers: {
      remote: {
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: 'Bearer test-token' },
        deferLoading: true,
      },
    },
  });
});

afterAll(async () => {
  await servers?.close();
  await stop(child);
});

describe('streamable HTTP servers', () => {
  it('lists the tools under the server namespace with the live schema', () => {
    const tools = createMcpTools({ servers });
    const add = tools.find((tool) => tool.name === 'add');
    expect(add).toMatchObject({
      namespace: 'remote',
      namespaceDescription: 'Arithmetic and test tools.',
      deferLoading: true,
      isReadOnly: true,
    });
    expect(Object.keys(add?.jsonSchema ?? {})).toEqual([
      '$schema',
      'additionalProperties',
      'type',
      'properties',
      'required',
    ]);
  });

  it('round-trips a call and sends the configured headers', async () => {
    const tools = createMcpTools({ servers });
    const add = tools.find((tool) => tool.name === 'add');
    expect(await add?.execute({ a: 20, b: 22 }, CALL_CONTEXT)).toMatchObject({
      content: [{ type: 'text', text: '42' }],
    });
    const stats = tools.find((tool) => tool.name === 'stats');
    const seen = JSON.parse(resultText((await stats?.execute({}, CALL_CONTEXT)) ?? { content: '{}' }));
    expect(seen.authorization).toBe('Bearer test-token');
  });

  it('maps an isError result over HTTP too', async () => {
    const fail = createMcpTools({ servers }).find((tool) => tool.name === 'fail');
    const result = await fail?.execute({ reason: 'remote' }, CALL_CONTEXT);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'failed: remote' }] });
  });
});

describe('an HTTP server that dies mid-call', () => {
  it('yields a tool error instead of waiting for the call timeout, then reports it unavailable', async () => {
    const { child: dying, port } = await startHttpServer();
    const remote = await connectMcpServers({
      servers: { remote: { url: `http://127.0.0.1:${port}/mcp`, callTimeoutMs: 600_000 } },
    });
    try {
      const tools = createMcpTools({ servers: remote });
      const died = await tools.find((tool) => tool.name === 'crash')?.execute({}, CALL_CONTEXT);
      expect(died).toMatchObject({ isError: true, details: { failure: 'server-exited' } });
      expect(resultText(died ?? { content: '' })).toContain(
        "MCP server 'remote' became unreachable during the call to remote.crash",
      );
      expect(remote.status('remote')).toBe('unavailable');
      // The one restart attempt fails too: the server is gone.
      const after = await tools.find((tool) => tool.name === 'add')?.execute({ a: 1, b: 1 }, CALL_CONTEXT);
      expect(after).toMatchObject({ isError: true, details: { failure: 'server-unavailable' } });
      expect(resultText(after ?? { content: '' })).toContain('restarting it failed');
    } finally {
      await remote.close();
      await stop(dying);
    }
  }, 30_000);
});
