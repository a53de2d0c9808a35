import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ResolvedMcpServerConfig } from '../mcp-server-config';
import { createBoundedFetch } from './bounded-fetch';
import { BoundedStdioTransport } from './bounded-stdio-transport';
import { refusedResponse } from './refused-response';

/**
 * The transport to one configured server, reading within its `maxMessageBytes`: this package's
 * stdio transport, or the SDK's streamable HTTP transport over a fetch that bounds every body and
 * event. `onStderr` gets what a stdio server writes to stderr.
 */
export function createServerTransport(
  server: string,
  config: ResolvedMcpServerConfig,
  onStderr: (chunk: string) => void,
): Transport {
  if (config.kind === 'http') {
    const transport: Transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } },
      fetch: createBoundedFetch({
        server,
        maxMessageBytes: config.maxMessageBytes,
        // The answer was cut off in an event stream: the requests it carried fail now, each with
        // the limit's message, rather than at their timeout.
        onRefused: (ids, error) => {
          for (const id of ids) transport.onmessage?.(refusedResponse(id, error));
        },
      }),
    });
    return transport;
  }
  const transport = new BoundedStdioTransport({
    server,
    command: config.command,
    ...(config.args === undefined ? {} : { args: config.args }),
    ...(config.env === undefined ? {} : { env: config.env }),
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    maxMessageBytes: config.maxMessageBytes,
  });
  transport.stderr.on('data', (chunk: Buffer | string) => onStderr(chunk.toString()));
  return transport;
}
