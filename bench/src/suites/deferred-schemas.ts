import { createResponsesModel, defineWorkerTool, runAgentLoop, type ToolSearchMode } from '@switchyard/core';
import { startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import { bytes, heading, report } from '../measure';
import { benchTools } from '../scenarios/bench-tools';

const TOOL_COUNT = 300;
const NAMESPACES = 10;

/**
 * Request tool-schema bytes with 300 tools in 10 namespaces: every schema sent eagerly, against
 * the same tools deferred behind Tool Search. Measured on the first request the fake server got.
 */
export async function deferredSchemas(): Promise<void> {
  const server = await startFakeResponsesServer({ script: (request) => ({ text: `seen ${request.index}` }) });
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'bench', maxRetries: 0 });
  const model = createResponsesModel({ client, model: 'bench-model' });
  const tools = (deferLoading: boolean) =>
    benchTools(TOOL_COUNT).map((tool, index) => {
      const group = index % NAMESPACES;
      return defineWorkerTool({
        name: tool.name,
        description: tool.description,
        schema: tool.schema,
        namespace: `service_${group}`,
        namespaceDescription: `Service ${group}: one external system's tools.`,
        deferLoading,
        describeActivity: () => tool.name,
        execute: () => ({ content: 'ok' }),
      });
    });
  const requestBytes = async (deferLoading: boolean, toolSearch: ToolSearchMode) => {
    server.reset((request) => ({ text: `seen ${request.index}` }));
    await runAgentLoop({ model, tools: tools(deferLoading), input: 'Go.', toolSearch }).result();
    return Buffer.byteLength(JSON.stringify(server.requests[0]?.body.tools ?? []));
  };
  try {
    const eager = await requestBytes(false, 'client');
    const client = await requestBytes(true, 'client');
    const native = await requestBytes(true, 'native');
    heading(`Request tool-schema bytes: ${TOOL_COUNT} tools in ${NAMESPACES} namespaces`);
    report('eager (every schema in the request)', bytes(eager));
    report(
      'deferred, client Tool Search (first request)',
      bytes(client),
      `${(100 * (1 - client / eager)).toFixed(1)}% smaller (target >= 95%)`,
    );
    report(
      'deferred, native Tool Search (first request)',
      bytes(native),
      'schemas sent with defer_loading; the provider keeps them out of the context',
    );
  } finally {
    await server.close();
  }
}
