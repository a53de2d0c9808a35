import { readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  type AgentToolResult,
  type AnyWorkerAgentTool,
  collectToolSchemas,
  type ToolExecutionContext,
  type ToolProgress,
} from '@switchyard/core';
import type { NamespaceToolSchema } from '@switchyard/core/internal';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { calcStdio } from './__fixtures__/connect-for-suite';
import { addInputSchemaFile, calcStdioServer } from './__fixtures__/fixture-paths';
import { connectMcpServers, type McpServers } from './connect-mcp-servers';
import { createMcpTools } from './create-mcp-tools';
import { McpConfigurationError } from './errors/mcp-configuration-error';
import type { McpToolCallDetails } from './mcp-tool-result';

function context(signal = new AbortController().signal, progress: ToolProgress[] = []): ToolExecutionContext {
  return {
    signal,
    toolCallId: 'call_1',
    idempotencyKey: 'turn_test:1',
    reportProgress: (update) => progress.push(update),
  };
}

function find(tools: AnyWorkerAgentTool[], namespace: string, name: string): AnyWorkerAgentTool {
  const tool = tools.find((candidate) => candidate.namespace === namespace && candidate.name === name);
  if (!tool) throw new Error(`no tool ${namespace}.${name}`);
  return tool;
}

async function call(
  tools: AnyWorkerAgentTool[],
  name: string,
  params: Record<string, unknown> = {},
  namespace = 'calc',
): Promise<AgentToolResult<McpToolCallDetails>> {
  return find(tools, namespace, name).execute(params, context());
}

function text(result: AgentToolResult): string {
  return typeof result.content === 'string'
    ? result.content
    : result.content.map((part) => (part.type === 'text' ? part.text : `[${part.mimeType}]`)).join('\n');
}

const workDirectory = realpathSync(tmpdir());
let servers: McpServers;

beforeAll(async () => {
  servers = await connectMcpServers({
    servers: {
      calc: {
        command: process.execPath,
        args: [calcStdioServer],
        env: { CALC_MARKER: 'm1' },
        cwd: workDirectory,
      },
      lazy: {
        command: process.execPath,
        args: [calcStdioServer],
        env: { CALC_PAGE_SIZE: '4' },
        deferLoading: true,
        description: 'Deferred copy of calc.',
      },
    },
  });
});

afterAll(async () => {
  await servers?.close();
});

describe('tool definitions', () => {
  it('makes every tool of every server a namespaced worker tool, in order', () => {
    const tools = createMcpTools({ servers });
    const calc = tools.filter((tool) => tool.namespace === 'calc').map((tool) => tool.name);
    expect(calc).toEqual([
      'add',
      'slow',
      'crash',
      'fail',
      'throw',
      'media',
      'files_read',
      'stats',
      'grow',
      'echo',
      'big',
      'images',
      'maybe_task',
      'empty_images',
      'progress_then_result',
    ]);
    expect(tools.slice(0, calc.length).every((tool) => tool.namespace === 'calc')).toBe(true);
    // `lazy` pages its tool list four at a time: every page is read.
    expect(tools.filter((tool) => tool.namespace === 'lazy').map((tool) => tool.name)).toEqual(calc);
    expect(servers.names).toEqual(['calc', 'lazy']);
    expect(servers.status('calc')).toBe('connected');
  });

  it('passes the live inputSchema unchanged, key order included, and sends that very object', () => {
    const add = find(createMcpTools({ servers }), 'calc', 'add');
    const wire = readFileSync(addInputSchemaFile, 'utf8');
    expect(JSON.stringify(add.jsonSchema)).toBe(JSON.stringify(JSON.parse(wire)));
    expect(add.jsonSchema).toMatchObject({ properties: { a: { minimum: -1000, maximum: 1000 } } });
    const manifest = collectToolSchemas([add]);
    const namespace = manifest.tools[0] as NamespaceToolSchema;
    expect(namespace.tools[0]?.parameters).toBe(add.jsonSchema);
    expect(manifest.entries[0]).toMatchObject({ key: 'calc.add', external: true });
  });

  it('uses the server instructions, or the configured description, as the namespace description', () => {
    const tools = createMcpTools({ servers });
    expect(find(tools, 'calc', 'add').namespaceDescription).toBe('Arithmetic and test tools.');
    expect(find(tools, 'lazy', 'add').namespaceDescription).toBe('Deferred copy of calc.');
  });

  it('defers loading only for the server configured so', () => {
    const tools = createMcpTools({ servers });
    expect(
      tools.filter((tool) => tool.namespace === 'lazy').every((tool) => tool.deferLoading === true),
    ).toBe(true);
    expect(
      tools.filter((tool) => tool.namespace === 'calc').every((tool) => tool.deferLoading === undefined),
    ).toBe(true);
  });

  it('maps the MCP annotations to hints and execution modes', () => {
    const tools = createMcpTools({ servers });
    expect(find(tools, 'calc', 'add')).toMatchObject({
      isReadOnly: true,
      isDestructive: false,
      executionMode: 'parallel',
    });
    // readOnlyHint: false, destructiveHint: false
    expect(find(tools, 'calc', 'crash')).toMatchObject({
      isReadOnly: false,
      isDestructive: false,
      executionMode: 'sequential',
    });
    // no annotations: MCP's defaults (not read-only, destructive)
    expect(find(tools, 'calc', 'fail')).toMatchObject({
      isReadOnly: false,
      isDestructive: true,
      executionMode: 'sequential',
    });
  });

  it('labels the activity with the namespaced tool name', async () => {
    const add = find(createMcpTools({ servers }), 'calc', 'add');
    expect(add.describeActivity({ a: 1, b: 2 })).toBe('Calling calc.add');
    expect(add.describeCompletedActivity?.({}, { content: '3' })).toBe('Called calc.add');
    const failed = await call(createMcpTools({ servers }), 'fail');
    expect(find(createMcpTools({ servers }), 'calc', 'fail').describeCompletedActivity?.({}, failed)).toBe(
      'calc.fail failed',
    );
  });

  it('leaves out a tool whose schema cannot be compiled, keeping the others, and reports it', () => {
    expect(createMcpTools({ servers }).some((tool) => tool.name === 'broken_schema')).toBe(false);
    const skipped = servers.skippedTools().filter(({ kind }) => kind === 'invalid-definition');
    expect(skipped.map(({ server, tool }) => `${server}.${tool}`)).toEqual([
      'calc.broken_schema',
      'lazy.broken_schema',
    ]);
    expect(skipped[0]?.reason).toContain('jsonSchema: cannot be compiled for validation');
  });

  it('leaves out a tool the server runs only as an MCP task, and reports it with the reason', () => {
    const tools = createMcpTools({ servers });
    expect(tools.some((tool) => tool.name === 'research')).toBe(false);
    const skipped = servers.skippedTools();
    expect(skipped.map(({ server, tool, kind }) => `${server}.${tool}: ${kind}`)).toEqual([
      'calc.broken_schema: invalid-definition',
      'calc.research: task-required',
      'lazy.broken_schema: invalid-definition',
      'lazy.research: task-required',
    ]);
    expect(skipped[1]).toEqual({
      server: 'calc',
      tool: 'research',
      kind: 'task-required',
      reason:
        'Tool \'research\' runs only as an MCP task (execution.taskSupport: "required"), which this client does not support; a plain call would always fail.',
    });
    // Nothing of it reaches the model's tool list either.
    expect(JSON.stringify(collectToolSchemas(tools).tools)).not.toContain('research');
  });

  it('offers a tool whose task support is optional and calls it as a plain call', async () => {
    const result = await call(createMcpTools({ servers }), 'maybe_task', { topic: 'nat64' });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'researched nat64' }],
      details: { server: 'calc', tool: 'maybe_task' },
    });
  });

  it('reuses the same tool objects on every turn while the tool list is unchanged', () => {
    const first = createMcpTools({ servers });
    const second = createMcpTools({ servers });
    expect(second).not.toBe(first);
    expect(second).toHaveLength(first.length);
    for (const [index, tool] of second.entries()) expect(tool).toBe(first[index]);
  });

  it('gives an MCP name the Responses API refuses a valid name, and calls it by its own', async () => {
    const result = await call(createMcpTools({ servers }), 'files_read');
    expect(text(result)).toBe('called as files.read');
    expect(result.details).toEqual({ server: 'calc', tool: 'files.read' });
  });

  it('refuses a configuration where connected servers are expected, naming the field', () => {
    let caught: unknown;
    try {
      createMcpTools({ servers: { calc: { command: 'node' } } as never });
    } catch (error) {
      caught = error;
    }
    expect(McpConfigurationError.isInstance(caught)).toBe(true);
    expect((caught as McpConfigurationError).field).toBe('servers');
    expect((caught as Error).message).toContain('connectMcpServers');
  });
});

describe('calls', () => {
  it('round-trips a call through the server', async () => {
    const result = await call(createMcpTools({ servers }), 'add', { a: 2, b: 3 });
    expect(result).toEqual({
      content: [{ type: 'text', text: '5' }],
      details: { server: 'calc', tool: 'add' },
    });
  });

  it('starts a stdio server with the configured env and cwd', async () => {
    const stats = JSON.parse(text(await call(createMcpTools({ servers }), 'stats')));
    expect(stats).toMatchObject({ env: 'm1', cwd: workDirectory });
  });

  it("adds callMeta to every call's _meta, beside the progress token, asked at call time", async () => {
    let traceParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const traced = await connectMcpServers({
      servers: { calc: calcStdio() },
      callMeta: () => ({ traceparent: traceParent, progressToken: 'mine', dropped: 5 as unknown as string }),
    });
    try {
      const tools = createMcpTools({ servers: traced });
      const first = JSON.parse(text(await call(tools, 'stats')));
      expect(first.meta).toMatchObject({ traceparent: traceParent });
      expect(first.meta.dropped).toBeUndefined();
      expect(first.meta.progressToken).not.toBe('mine');
      traceParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
      expect(JSON.parse(text(await call(tools, 'stats'))).meta.traceparent).toBe(traceParent);
    } finally {
      await traced.close();
    }
    const plain = JSON.parse(text(await call(createMcpTools({ servers }), 'stats')));
    expect(plain.meta?.traceparent).toBeUndefined();
  });

  it('maps an isError result to an error result', async () => {
    const result = await call(createMcpTools({ servers }), 'fail', { reason: 'because' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('failed: because');
    expect(result.details?.failure).toBe('tool-error');
  });

  it('turns a JSON-RPC error into an error result', async () => {
    const result = await call(createMcpTools({ servers }), 'throw');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Calling calc.throw failed');
    expect(text(result)).toContain('thrown on purpose');
    expect(result.details?.failure).toBe('protocol-error');
  });

  it('maps text, image, resource, link and audio content to content parts', async () => {
    const result = await call(createMcpTools({ servers }), 'media');
    expect(result.isError).toBeUndefined();
    const parts = result.content;
    expect(Array.isArray(parts) && parts.map((part) => part.type)).toEqual([
      'text',
      'image',
      'text',
      'image',
      'text',
      'text',
      'text',
    ]);
    expect(parts[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(parts[2]).toEqual({ type: 'text', text: 'Resource file:///notes.txt:\nnote text' });
    expect(parts[3]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(text(result)).toContain('[binary resource file:///data.bin (unknown type, 3 bytes) omitted]');
    expect(text(result)).toContain('Resource link: big.csv <file:///big.csv> (text/csv)');
    expect(text(result)).toContain('[audio (audio/wav, 3 bytes) omitted]');
    expect(result.details?.structuredContent).toEqual({ parts: 7 });
  });
});

describe('images', () => {
  const unsupported = 'omitted: the model takes PNG, JPEG, GIF and WebP images only]';

  it('passes PNG, JPEG, GIF and WebP images through and names every other type with its exact size', async () => {
    const result = await call(createMcpTools({ servers }), 'images');
    const parts = Array.isArray(result.content) ? result.content : [];
    expect(parts.map((part) => (part.type === 'image' ? part.mimeType : part.text))).toEqual([
      `[image (image/svg+xml, 64 bytes) ${unsupported}`,
      `[image (image/bmp, 62 bytes) ${unsupported}`,
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
      // A common misspelling of JPEG, in any case: sent under its registered name.
      'image/jpeg',
      `[image (image/tiff, 70 bytes) ${unsupported}`,
      `[image resource file:///logo.svg (image/svg+xml, 64 bytes) ${unsupported}`,
      'image/webp',
    ]);
    expect(parts[2]).toMatchObject({ type: 'image', data: expect.stringMatching(/^iVBORw0KGgo/) });
  });

  it('gives the exact size of a large image without padding errors', async () => {
    const bytes = 1024 * 1024 + 1;
    const result = await call(createMcpTools({ servers }), 'images', { bmpBytes: bytes });
    const parts = Array.isArray(result.content) ? result.content : [];
    expect(parts[1]).toEqual({ type: 'text', text: `[image (image/bmp, ${bytes} bytes) ${unsupported}` });
  });
});

describe('abort handling', () => {
  it('cancels a running call on the server when the signal fires', async () => {
    const slow = find(createMcpTools({ servers }), 'calc', 'slow');
    const controller = new AbortController();
    const progress: ToolProgress[] = [];
    const running = slow.execute({}, context(controller.signal, progress));
    await vi.waitFor(() => expect(progress).toEqual([{ completed: 1, total: 10, message: 'started' }]), {
      timeout: 30_000,
    });
    controller.abort(new Error('turn aborted'));
    const result = await running;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('The call to calc.slow was cancelled (turn aborted).');
    expect(slow.describeCompletedActivity?.({}, result)).toBe('Cancelled calc.slow');
    const stats = JSON.parse(text(await call(createMcpTools({ servers }), 'stats')));
    expect(stats.cancelled).toBe(1);
  });

  it('does not start a call whose signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    const result = await find(createMcpTools({ servers }), 'calc', 'add').execute(
      { a: 1, b: 1 },
      context(controller.signal),
    );
    expect(result).toMatchObject({ isError: true, details: { failure: 'cancelled' } });
  });
});

describe('tool list changes', () => {
  it('follows tools/list_changed and keeps the unchanged tool objects', async () => {
    const before = createMcpTools({ servers }).filter((tool) => tool.namespace === 'lazy');
    expect(text(await call(createMcpTools({ servers }), 'grow', {}, 'lazy'))).toBe('grown');
    // The list is read again after the notification: on a loaded machine that can take seconds.
    await vi.waitFor(
      () => expect(createMcpTools({ servers }).some((tool) => tool.name === 'extra')).toBe(true),
      { timeout: 30_000 },
    );
    const after = createMcpTools({ servers }).filter((tool) => tool.namespace === 'lazy');
    expect(after.map((tool) => tool.name)).toEqual([...before.map((tool) => tool.name), 'extra']);
    for (const [index, tool] of before.entries()) expect(after[index]).toBe(tool);
    expect(find(after, 'lazy', 'extra').deferLoading).toBe(true);
    expect(text(await call(after, 'extra', {}, 'lazy'))).toBe('extra');
    expect(
      createMcpTools({ servers }).some((tool) => tool.namespace === 'calc' && tool.name === 'extra'),
    ).toBe(false);
  });
});
