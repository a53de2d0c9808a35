import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { measure, ms, report } from '@switchyard/bench-kit';
import { collectToolSchemas, type JSONSchemaObject } from '@switchyard/core';
import { calcStdioServer } from '../src/__fixtures__/fixture-paths';
import { connectMcpServers, createMcpTools } from '../src/index';
import { createMcpWorkerTool } from '../src/mcp-worker-tool';

const context = {
  signal: new AbortController().signal,
  toolCallId: 'bench',
  idempotencyKey: 'turn_test:1',
  reportProgress: () => {},
};
const server = { command: process.execPath, args: [calcStdioServer] };

report('MCP tools, the calc fixture server over stdio', 'median', 'ratio');

const connectStart = performance.now();
const mcp = await connectMcpServers({ servers: { calc: server } });
report('  connectMcpServers (spawn + handshake + list), once', ms(performance.now() - connectStart));

// Baseline: what a worker that re-lists and redefines the tools every turn would pay.
const client = new Client({ name: 'bench', version: '0' });
await client.connect(new StdioClientTransport(server));
const relist = await measure(
  async () => {
    const { tools } = await client.listTools();
    // The fixture's broken_schema tool is one core refuses; the real path leaves it out too.
    const defined = tools
      .filter((tool) => tool.name !== 'broken_schema')
      .map((tool) =>
        createMcpWorkerTool({
          server: 'calc',
          name: tool.name.replace(/[^a-zA-Z0-9_-]/g, '_'),
          tool,
          inputSchema: tool.inputSchema as JSONSchemaObject,
          namespaceDescription: undefined,
          deferLoading: false,
          call: async () => ({ content: '' }),
        }),
      );
    return collectToolSchemas(defined);
  },
  { runs: 200 },
);
const perTurn = await measure(() => collectToolSchemas(createMcpTools({ servers: mcp })), { runs: 5000 });
report('  per turn, baseline: listTools + define + collect', ms(relist.median));
report(
  '  per turn: createMcpTools + collect (cached)',
  ms(perTurn.median),
  `${(relist.median / perTurn.median).toFixed(0)}x faster than baseline`,
);

const add = createMcpTools({ servers: mcp }).find((tool) => tool.name === 'add');
if (!add) throw new Error('no add tool');
// Interleaved rounds, best median of each: on a shared machine one-after-the-other runs mostly
// measure the load.
let raw = Number.POSITIVE_INFINITY;
let wrapped = Number.POSITIVE_INFINITY;
for (let round = 0; round < 3; round += 1) {
  const rawRound = await measure(() => client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), {
    runs: 200,
  });
  const wrappedRound = await measure(() => add.execute({ a: 2, b: 3 }, context), { runs: 200 });
  raw = Math.min(raw, rawRound.median);
  wrapped = Math.min(wrapped, wrappedRound.median);
}
report('  call round trip, baseline: SDK client.callTool', ms(raw));
report('  call round trip: worker tool execute', ms(wrapped), `${(wrapped / raw).toFixed(2)}x the baseline`);

await client.close();
await mcp.close();
