import type { AnyWorkerAgentTool } from '@switchyard/core';
import { rejectionOf } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { calcStdio } from './__fixtures__/connect-for-suite';
import { CALL_CONTEXT, resultText } from './__fixtures__/tool-call';
import { connectMcpServers } from './connect-mcp-servers';
import { createMcpTools } from './create-mcp-tools';
import { McpConfigurationError } from './errors/mcp-configuration-error';
import { McpConnectionError } from './errors/mcp-connection-error';

function find(tools: AnyWorkerAgentTool[], name: string): AnyWorkerAgentTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

const connectError = (run: () => Promise<unknown>) => rejectionOf(run, McpConnectionError);

describe('a server that dies mid-call', () => {
  it('yields a tool error, restarts the server once for the next call, then reports it unavailable', async () => {
    const servers = await connectMcpServers({
      servers: { calc: calcStdio() },
    });
    try {
      const tools = createMcpTools({ servers });
      const crash = find(tools, 'crash');
      const add = find(tools, 'add');

      const died = await crash.execute({}, CALL_CONTEXT);
      expect(died.isError).toBe(true);
      expect(died.details).toEqual({ server: 'calc', tool: 'crash', failure: 'server-exited' });
      expect(resultText(died)).toContain("MCP server 'calc' exited during the call to calc.crash");
      expect(crash.describeCompletedActivity?.({}, died)).toBe('calc.crash failed: server unavailable');
      expect(servers.status('calc')).toBe('unavailable');

      // The first call after the death starts a restart; aborting that call does not wait for it.
      const controller = new AbortController();
      const waiting = add.execute({ a: 2, b: 2 }, { ...CALL_CONTEXT, signal: controller.signal });
      controller.abort(new Error('turn aborted'));
      expect(await waiting).toMatchObject({ isError: true, details: { failure: 'cancelled' } });

      // The next call gets the restarted server; the tool objects stay the same.
      expect(await add.execute({ a: 2, b: 2 }, CALL_CONTEXT)).toMatchObject({
        content: [{ type: 'text', text: '4' }],
      });
      expect(servers.status('calc')).toBe('connected');
      for (const [index, tool] of createMcpTools({ servers }).entries()) expect(tool).toBe(tools[index]);

      expect((await crash.execute({}, CALL_CONTEXT)).details?.failure).toBe('server-exited');
      const unavailable = await add.execute({ a: 2, b: 2 }, CALL_CONTEXT);
      expect(unavailable).toMatchObject({ isError: true, details: { failure: 'server-unavailable' } });
      expect(resultText(unavailable)).toBe(
        "MCP server 'calc' is unavailable: its process exited. Its tools cannot be called in this session.",
      );
      expect(servers.status('calc')).toBe('unavailable');
    } finally {
      await servers.close();
    }
    expect(servers.status('calc')).toBe('closed');
  });

  it('answers calls after close with an error result', async () => {
    const servers = await connectMcpServers({
      servers: { calc: calcStdio() },
    });
    const add = find(createMcpTools({ servers }), 'add');
    await servers.close();
    const result = await add.execute({ a: 1, b: 1 }, CALL_CONTEXT);
    expect(result).toMatchObject({ isError: true, details: { failure: 'server-unavailable' } });
    expect(resultText(result)).toContain('the MCP servers were closed');
  });
});

describe('start-up failures', () => {
  it('names the server whose command does not exist', async () => {
    const error = await connectError(() =>
      connectMcpServers({ servers: { ghost: { command: 'switchyard-no-such-command' } } }),
    );
    expect(error.server).toBe('ghost');
    expect(error.message).toMatch(/^MCP server 'ghost' failed to start: .*ENOENT/);
    expect(error.message).toContain('command: switchyard-no-such-command');
  });

  it('names the server that exits during the handshake and shows its stderr', async () => {
    const error = await connectError(() =>
      connectMcpServers({
        servers: {
          calc: calcStdio(),
          broken: {
            command: process.execPath,
            args: ['-e', "console.error('missing API key'); process.exit(3)"],
          },
        },
      }),
    );
    expect(error.server).toBe('broken');
    expect(error.message).toContain('the process exited before completing the MCP handshake');
    expect(error.message).toContain('missing API key');
  });

  it('times out a server that never answers the handshake', async () => {
    const silent = "process.stdin.on('end', () => process.exit(0)); process.stdin.resume()";
    const error = await connectError(() =>
      connectMcpServers({
        servers: { mute: { command: process.execPath, args: ['-e', silent], startupTimeoutMs: 300 } },
      }),
    );
    expect(error.server).toBe('mute');
    expect(error.message).toContain('no MCP handshake within 300 ms');
  });

  it('names the HTTP server that refuses the connection', async () => {
    const error = await connectError(() =>
      connectMcpServers({ servers: { remote: { url: 'http://127.0.0.1:9/mcp', startupTimeoutMs: 5000 } } }),
    );
    expect(error.server).toBe('remote');
    expect(error.message).toContain('url: http://127.0.0.1:9/mcp');
  });

  it('refuses a bad configuration before starting anything', async () => {
    await expect(connectMcpServers({ servers: { 'calc.v2': calcStdio() } })).rejects.toSatisfy(
      (error: unknown) => McpConfigurationError.isInstance(error) && error.field === 'servers["calc.v2"]',
    );
  });
});
