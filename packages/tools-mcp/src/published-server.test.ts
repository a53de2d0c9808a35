import { createRequire } from 'node:module';
import path from 'node:path';
import { collectToolSchemas, type ToolExecutionContext } from '@switchyard/core';
import { describe, expect, it, vi } from 'vitest';
import { connectForSuite } from './__fixtures__/connect-for-suite';
import { createMcpTools } from './create-mcp-tools';

// The published reference server, installed as a pinned devDependency and started from
// node_modules over stdio: nothing is fetched when the test runs.
const everythingServer = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'),
  ),
  'dist',
  'index.js',
);

const context = (): ToolExecutionContext => ({
  signal: new AbortController().signal,
  toolCallId: 'call_1',
  idempotencyKey: 'turn_test:1',
  reportProgress: () => {},
});

const suite = connectForSuite({
  everything: { command: process.execPath, args: [everythingServer, 'stdio'] },
});

describe('@modelcontextprotocol/server-everything', () => {
  it('leaves out simulate-research-query, which runs only as a task, and says why', async () => {
    // The server registers it once the handshake is done and announces the changed tool list.
    await vi.waitFor(
      () => expect(suite.servers.skippedTools().map(({ tool }) => tool)).toContain('simulate-research-query'),
      { timeout: 30_000 },
    );
    const skipped = suite.servers.skippedTools().find(({ tool }) => tool === 'simulate-research-query');
    expect(skipped).toMatchObject({ server: 'everything', kind: 'task-required' });
    expect(skipped?.reason).toContain('execution.taskSupport: "required"');
    const tools = createMcpTools({ servers: suite.servers });
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(tools.some((tool) => tool.name === 'simulate-research-query')).toBe(false);
    expect(JSON.stringify(collectToolSchemas(tools).tools)).not.toContain('simulate-research-query');
  });

  it('calls an ordinary tool', async () => {
    const echo = createMcpTools({ servers: suite.servers }).find((tool) => tool.name === 'echo');
    const result = await echo?.execute({ message: 'over stdio' }, context());
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Echo: over stdio' }],
      details: { server: 'everything', tool: 'echo' },
    });
  });

  it('passes its PNG image through as an image', async () => {
    const image = createMcpTools({ servers: suite.servers }).find((tool) => tool.name === 'get-tiny-image');
    const result = await image?.execute({}, context());
    const parts = Array.isArray(result?.content) ? result.content : [];
    expect(parts.map((part) => part.type)).toEqual(['text', 'image', 'text']);
    expect(parts[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
  });
});
