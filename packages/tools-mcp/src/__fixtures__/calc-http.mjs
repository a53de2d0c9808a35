// The calc server over streamable HTTP on 127.0.0.1 (port 0); prints `PORT <n>` once listening.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createCalcServer } from './calc-server.mjs';

const sessions = new Map();

const http = createServer(async (request, response) => {
  const sessionId = request.headers['mcp-session-id'];
  let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (!transport) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    await createCalcServer().connect(transport);
  }
  await transport.handleRequest(request, response);
});

http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${http.address().port}\n`);
});
