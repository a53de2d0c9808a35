// A small but real MCP server for the tools-mcp tests, built on the SDK's low-level `Server` so the
// tool list it sends is exactly what this file says (key order included). `calc-stdio.mjs` and
// `calc-http.mjs` serve it over stdio and streamable HTTP.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const addInputSchema = JSON.parse(readFileSync(new URL('./add-input-schema.json', import.meta.url), 'utf8'));
const object = (properties = {}) => ({ type: 'object', properties });
const emptyObject = object();

/** A tool as listed: name, description, input schema, then `more` (execution, annotations). */
const tool = (name, description, inputSchema = emptyObject, more = {}) => ({
  name,
  description,
  inputSchema,
  ...more,
});
const readOnlyTool = (name, description, inputSchema = emptyObject, more = {}) =>
  tool(name, description, inputSchema, { ...more, annotations: { readOnlyHint: true } });

const baseTools = [
  {
    name: 'add',
    title: 'Add',
    description: 'Add two numbers.',
    inputSchema: addInputSchema,
    annotations: { readOnlyHint: true },
  },
  readOnlyTool('slow', 'Wait until cancelled (reports progress first).'),
  tool('crash', 'Exit the server process in the middle of the call.', emptyObject, {
    annotations: { readOnlyHint: false, destructiveHint: false },
  }),
  tool('fail', 'Return an error result.', object({ reason: { type: 'string' } })),
  tool('throw', 'Fail with a JSON-RPC error instead of a result.'),
  readOnlyTool('media', 'Return one content part of every kind.'),
  readOnlyTool('files.read', 'A tool whose MCP name is not a valid Responses tool name.'),
  readOnlyTool('stats', 'Report what the server has seen.'),
  tool(
    'broken_schema',
    'A tool whose schema no validator can compile (an unresolvable $ref).',
    object({ x: { $ref: '#/definitions/missing' } }),
  ),
  tool('grow', 'Add the `extra` tool and announce the tool list change.'),
  readOnlyTool('echo', 'Echo the arguments as JSON (any number, no bounds).', {
    ...object({ value: { type: 'number' } }),
    required: ['value'],
  }),
  readOnlyTool(
    'big',
    'Return `bytes` bytes of text, starting with BEGIN and ending with END.',
    object({ bytes: { type: 'integer', minimum: 8 } }),
  ),
  readOnlyTool(
    'images',
    'Return images of every type the model takes and of types it does not.',
    object({ bmpBytes: { type: 'integer', minimum: 2 } }),
  ),
  readOnlyTool(
    'research',
    'A tool the server runs only as an MCP task.',
    object({ topic: { type: 'string' } }),
    {
      execution: { taskSupport: 'required' },
    },
  ),
  readOnlyTool(
    'maybe_task',
    'A tool the server may run as an MCP task or as a plain call.',
    object({ topic: { type: 'string' } }),
    { execution: { taskSupport: 'optional' } },
  ),
  readOnlyTool('empty_images', 'Return images (and an image resource) with empty data beside one with data.'),
  readOnlyTool(
    'progress_then_result',
    'Send `count` progress notifications and the result at once, without waiting between them.',
    object({ count: { type: 'integer', minimum: 1, maximum: 50 } }),
  ),
];
const extraTool = readOnlyTool('extra', 'Appears after grow.');

/** 64 bytes of SVG: its base64 ends in `==` (a decoded size from the base64 length alone would say 66). */
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>  ');
/** A BMP of `bytes` bytes ("BM" and zeros); 62 bytes by default, whose base64 ends in `=`. */
const bmp = (bytes = 62) => Buffer.concat([Buffer.from('BM'), Buffer.alloc(bytes - 2)]);
if (svg.length !== 64 || bmp().length !== 62) throw new Error('image fixtures changed size');

const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * A fresh server with its own state (tool list, cancellation count). With `tools: false` it offers
 * no tools capability at all, like a server of only resources or prompts.
 */
export function createCalcServer({ tools: offerTools = true } = {}) {
  let tools = baseTools;
  let cancelled = 0;
  /** Calls the server received, by tool name. */
  const calls = {};
  const server = new Server(
    { name: 'calc', version: '1.0.0' },
    {
      capabilities: offerTools ? { tools: { listChanged: true } } : {},
      instructions: process.env.CALC_INSTRUCTIONS ?? 'Arithmetic and test tools.',
    },
  );

  if (!offerTools) return server;

  // CALC_PAGE_SIZE pages the tool list (the cursor is the offset of the next page).
  const pageSize = Number(process.env.CALC_PAGE_SIZE ?? 0);
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    if (!pageSize) return { tools };
    const offset = Number(request.params?.cursor ?? 0);
    const next = offset + pageSize;
    return { tools: tools.slice(offset, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    calls[request.params.name] = (calls[request.params.name] ?? 0) + 1;
    switch (request.params.name) {
      case 'add':
        return { content: [{ type: 'text', text: String(args.a + args.b) }] };
      case 'slow': {
        const token = request.params._meta?.progressToken;
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 10, message: 'started' },
          });
        }
        await new Promise((resolve) => {
          extra.signal.addEventListener('abort', () => {
            cancelled += 1;
            resolve();
          });
        });
        return { content: [{ type: 'text', text: 'cancelled' }] };
      }
      case 'crash':
        setTimeout(() => process.exit(7), 20);
        return new Promise(() => {});
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: `failed: ${args.reason ?? 'no reason'}` }] };
      case 'throw':
        throw new Error('thrown on purpose');
      case 'media':
        return {
          content: [
            { type: 'text', text: 'caption' },
            { type: 'image', data: pixel, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'note text' },
            },
            { type: 'resource', resource: { uri: 'file:///dot.png', mimeType: 'image/png', blob: pixel } },
            { type: 'resource', resource: { uri: 'file:///data.bin', blob: 'AAEC' } },
            { type: 'resource_link', uri: 'file:///big.csv', name: 'big.csv', mimeType: 'text/csv' },
            { type: 'audio', data: 'AAEC', mimeType: 'audio/wav' },
          ],
          structuredContent: { parts: 7 },
        };
      case 'images': {
        // The JPEG, GIF and WebP parts carry the PNG pixel: only the declared type is under test.
        const png = pixel;
        return {
          content: [
            { type: 'image', data: svg.toString('base64'), mimeType: 'image/svg+xml' },
            { type: 'image', data: bmp(args.bmpBytes).toString('base64'), mimeType: 'image/bmp' },
            { type: 'image', data: png, mimeType: 'image/png' },
            { type: 'image', data: png, mimeType: 'image/jpeg' },
            { type: 'image', data: png, mimeType: 'image/gif' },
            { type: 'image', data: png, mimeType: 'image/webp' },
            { type: 'image', data: png, mimeType: 'IMAGE/JPG' },
            { type: 'image', data: png, mimeType: 'image/tiff' },
            {
              type: 'resource',
              resource: { uri: 'file:///logo.svg', mimeType: 'image/svg+xml', blob: svg.toString('base64') },
            },
            { type: 'resource', resource: { uri: 'file:///a.webp', mimeType: 'image/webp', blob: png } },
          ],
        };
      }
      case 'empty_images':
        return {
          content: [
            { type: 'image', data: '', mimeType: 'image/png' },
            { type: 'image', data: pixel, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'file:///empty.webp', mimeType: 'image/webp', blob: '' } },
            { type: 'image', data: '', mimeType: 'image/svg+xml' },
          ],
        };
      case 'progress_then_result': {
        // Every notification and the result are sent in one go (no await between them); served with
        // CALC_ONE_WRITE_PER_TICK=1 they reach the client as one chunk, whose SDK then handles the
        // result before the progress it queued.
        const token = request.params._meta?.progressToken;
        const count = args.count ?? 1;
        for (let step = 1; token !== undefined && step <= count; step += 1) {
          void extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, total: count, message: `step ${step}` },
          });
        }
        return { content: [{ type: 'text', text: `done after ${count}` }] };
      }
      case 'research':
        // A server that runs a tool only as a task answers a plain call with -32600.
        throw new McpError(ErrorCode.InvalidRequest, 'research must be called as a task');
      case 'maybe_task':
        return { content: [{ type: 'text', text: `researched ${args.topic ?? 'nothing'}` }] };
      case 'files.read':
        return { content: [{ type: 'text', text: `called as ${request.params.name}` }] };
      case 'stats':
        return {
          content: [
            {
              type: 'text',
              text: JSON.stringify({
                cancelled,
                calls,
                env: process.env.CALC_MARKER ?? null,
                cwd: process.cwd(),
                authorization: extra.requestInfo?.headers?.authorization ?? null,
                meta: request.params._meta ?? null,
              }),
            },
          ],
        };
      case 'grow':
        tools = [...baseTools, extraTool];
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'grown' }] };
      case 'extra':
        return { content: [{ type: 'text', text: 'extra' }] };
      case 'echo':
        return { content: [{ type: 'text', text: JSON.stringify(args) }] };
      case 'big': {
        const bytes = args.bytes ?? 8;
        return { content: [{ type: 'text', text: `BEGIN${'x'.repeat(Math.max(0, bytes - 8))}END` }] };
      }
      default:
        throw new Error(`unknown tool ${request.params.name}`);
    }
  });

  return server;
}
