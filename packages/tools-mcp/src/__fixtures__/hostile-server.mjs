// A hostile MCP server for the limit tests, written by hand (no SDK) so that it can send anything:
// messages without end, pages without end, 10,000 tools, a 4 MB schema, 8 MB images, a million
// parts, progress without a result. `hostile-stdio.mjs` and `hostile-http.mjs` serve it.
//
// The listing attack is chosen by HOSTILE_ATTACK: `none`, `endless-pages`, `slow-pages`, `many-tools`,
// `huge-schema`, `costly-schema`, `long-instructions`, `list-changed-storm` (stdio), `endless-event` (HTTP: the standing GET stream sends
// one event without end). Call attacks are tools, always listed: `huge_result`, `endless_message`,
// `huge_notification`, `image`, `many_parts`, `progress_storm`, `progress_forever`, `deep_message`,
// `deep_structured`, `error_code`, and over stdio `ping_flood` and `garbage_forever`; `add` and
// `stats` are ordinary.

const attack = process.env.HOSTILE_ATTACK ?? 'none';
const object = (properties = {}) => ({ type: 'object', properties });

/** A read-only tool that takes `properties`. */
const readOnlyTool = (name, description, properties = {}) => ({
  name,
  description,
  inputSchema: object(properties),
  annotations: { readOnlyHint: true },
});
const integer = { type: 'integer' };

export const ordinaryTools = [
  readOnlyTool('add', 'Add two numbers.', { a: { type: 'number' }, b: { type: 'number' } }),
  readOnlyTool('stats', 'Report how many requests of each method the server received.'),
  readOnlyTool('huge_result', 'Answer with one message of `bytes` bytes of text.', { bytes: integer }),
  readOnlyTool('endless_message', 'Start an answer and never end it.'),
  readOnlyTool(
    'huge_notification',
    'Send a notification of `bytes` bytes (a message with no id) and never answer.',
    { bytes: integer },
  ),
  readOnlyTool('image', 'Answer with one PNG image of `bytes` bytes of base64.', { bytes: integer }),
  readOnlyTool('many_parts', 'Answer with `count` text parts of one character each.', { count: integer }),
  readOnlyTool('progress_storm', 'Send `count` progress notifications with 10 KB messages, then answer.', {
    count: integer,
  }),
  readOnlyTool('progress_forever', 'Report progress every 20 ms and never answer.'),
  readOnlyTool('deep_message', 'Answer with a result nested `depth` arrays deep (4 MB for 2,000,000).', {
    depth: integer,
  }),
  readOnlyTool('deep_structured', "Answer 'hi' with a structuredContent nested `depth` arrays deep.", {
    depth: integer,
  }),
  readOnlyTool('error_code', 'Answer with a JSON-RPC error of `code` and the message "quota exceeded".', {
    code: integer,
  }),
  readOnlyTool('ping_flood', 'Stop reading stdin and send ping requests without end (stdio).'),
  readOnlyTool('garbage_forever', 'Write lines that are not JSON without end (stdio).'),
];

/** The `tools/list` page for `cursor` under the current attack. */
function listPage(cursor) {
  if (attack === 'endless-pages' || attack === 'slow-pages') {
    // Every page has a next one; each after the first carries a 512 KiB tool.
    const page = cursor === undefined ? 0 : Number(cursor);
    const tools =
      page === 0
        ? ordinaryTools
        : [{ name: `padding_${page}`, description: 'p'.repeat(512 * 1024), inputSchema: object() }];
    return { tools, nextCursor: String(page + 1) };
  }
  if (attack === 'many-tools') {
    const many = Array.from({ length: 10_000 }, (_, index) => ({
      name: `tool_${index}`,
      description: `Tool number ${index}.`,
      inputSchema: object({ a: { type: 'string' }, b: { type: 'number', minimum: 0 } }),
    }));
    return { tools: [...ordinaryTools, ...many] };
  }
  if (attack === 'huge-schema') {
    // About 3.8 MB: under the 4 MiB message limit, so the schema limit is what refuses it.
    const properties = {};
    for (let index = 0; index < 40_000; index += 1) {
      properties[`p${index}`] = { type: 'string', description: 'x'.repeat(60) };
    }
    return { tools: [...ordinaryTools, { name: 'huge_schema', inputSchema: object(properties) }] };
  }
  if (attack === 'costly-schema') {
    // 50 KiB, well within maxSchemaBytes, whose compilation takes 1.4 s or more and whose validator
    // nests 1,000 blocks deep.
    const anyOf = Array.from({ length: 1000 }, (_, index) => ({
      type: 'object',
      properties: { kind: { const: index } },
    }));
    return { tools: [...ordinaryTools, { name: 'costly_schema', inputSchema: object({ x: { anyOf } }) }] };
  }
  return { tools: ordinaryTools };
}

/**
 * The server's side of one connection. `write(text)` sends one whole message (a line, an event, a
 * body); `stream` sends a message in pieces: `stream.start()`, `await stream.piece(text)` (false
 * once the client went away), `stream.end()`.
 */
/** Requests received by this process, by method (one HTTP server serves many requests). */
const received = {};

/** Counts one request of `method` (the HTTP server counts its GETs here too). */
export function countRequest(method) {
  received[method] = (received[method] ?? 0) + 1;
}

export function createHostileServer({ write, openStream, notify, stopReading, rawLine }) {
  const respond = (id, result) => write(JSON.stringify({ jsonrpc: '2.0', id, result }));

  /** The start of a result of one text part, up to where the text goes. */
  const resultHead = (id) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;

  /**
   * Sends one message in pieces: `head`, then 64 KiB pieces of `fill` until `bytes` are sent, then
   * `tail`. With `bytes` infinite the message never ends; it stops when the client goes away.
   */
  async function streamMessage(head, fill, bytes, tail) {
    const stream = openStream();
    if (!(await stream.piece(head))) return;
    const piece = fill.repeat(64 * 1024);
    for (let sent = 0; sent < bytes; sent += piece.length) {
      if (!(await stream.piece(piece))) return;
    }
    await stream.piece(tail);
    await stream.end();
  }

  async function call(id, name, args, progressToken) {
    switch (name) {
      case 'add':
        return respond(id, { content: [{ type: 'text', text: String(args.a + args.b) }] });
      case 'stats':
        return respond(id, {
          content: [{ type: 'text', text: JSON.stringify({ received, pid: process.pid }) }],
        });
      case 'huge_result':
        // Streamed in 64 KiB pieces, as a large answer would come.
        return streamMessage(resultHead(id), 'y', args.bytes, '"}]}}');
      case 'huge_notification':
        return streamMessage(
          '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"',
          'n',
          args.bytes,
          '"}}',
        );
      case 'endless_message':
        return streamMessage(resultHead(id), 'z', Number.POSITIVE_INFINITY);
      case 'image':
        return respond(id, {
          content: [{ type: 'image', mimeType: 'image/png', data: 'A'.repeat(args.bytes) }],
        });
      case 'many_parts':
        return respond(id, {
          content: Array.from({ length: args.count }, () => ({ type: 'text', text: 'x' })),
        });
      case 'progress_storm': {
        const message = 'm'.repeat(10_000);
        for (let progress = 1; progress <= args.count; progress += 1) {
          if (!notify({ method: 'notifications/progress', params: { progressToken, progress, message } }))
            return;
          // Let the notifications go out as they are made rather than pile up here.
          if (progress % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        return respond(id, { content: [{ type: 'text', text: 'stormed' }] });
      }
      case 'progress_forever': {
        let progress = 0;
        const timer = setInterval(() => {
          progress += 1;
          if (!notify({ method: 'notifications/progress', params: { progressToken, progress } })) {
            clearInterval(timer);
          }
        }, 20);
        return;
      }
      case 'deep_message': {
        const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":{"nest":`;
        return write(`${head}${'['.repeat(args.depth)}${']'.repeat(args.depth)}}}}`);
      }
      case 'deep_structured': {
        const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"nest":`;
        return write(`${head}${'['.repeat(args.depth)}${']'.repeat(args.depth)}}}}`);
      }
      case 'error_code':
        return write(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: { code: args.code, message: 'quota exceeded for project x' },
          }),
        );
      case 'ping_flood': {
        stopReading();
        for (let ping = 1; ; ping += 1) {
          if (!(await rawLine(JSON.stringify({ jsonrpc: '2.0', id: `ping-${ping}`, method: 'ping' }))))
            return;
        }
      }
      case 'garbage_forever': {
        const line = 'this is not JSON '.repeat(4);
        for (;;) if (!(await rawLine(line))) return;
      }
      default:
        return write(
          JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: `no tool ${name}` } }),
        );
    }
  }

  /** Handles one message from the client. */
  async function handle(message) {
    if (typeof message.method === 'string') countRequest(message.method);
    if (message.id === undefined) {
      if (message.method === 'notifications/initialized' && attack === 'list-changed-storm') {
        for (let index = 0; index < 5000; index += 1) notify({ method: 'notifications/tools/list_changed' });
      }
      return;
    }
    switch (message.method) {
      case 'initialize':
        return respond(message.id, {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'hostile', version: '1.0.0' },
          // `long-instructions`: 1 MB of instructions, which would go into every model request.
          ...(attack === 'long-instructions' ? { instructions: 'i'.repeat(1_000_000) } : {}),
        });
      case 'tools/list':
        // `slow-pages`: every page takes 100 ms, and there is always a next one.
        if (attack === 'slow-pages') await new Promise((resolve) => setTimeout(resolve, 100));
        return respond(message.id, listPage(message.params?.cursor));
      case 'tools/call':
        return call(
          message.id,
          message.params.name,
          message.params.arguments ?? {},
          message.params._meta?.progressToken,
        );
      default:
        return respond(message.id, {});
    }
  }

  return { handle };
}
