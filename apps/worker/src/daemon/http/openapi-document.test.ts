import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { TOOL_CALL_OUTCOMES } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../version';
import { DaemonTurns } from '../daemon-turns';
import { createDaemonHttpApi } from './daemon-http-api';

// The OpenAPI document the daemon serves is committed (`apps/worker/openapi.json`): clients type
// themselves from it (the console generates its types from it at build time). This test keeps it
// equal to what the code serves. After changing a route:
//   UPDATE_API_DOCUMENT=1 pnpm exec vitest --run src/daemon/http/openapi-document.test.ts
const documentFile = fileURLToPath(new URL('../../../openapi.json', import.meta.url));

async function servedDocument(): Promise<Record<string, unknown>> {
  // Only the document is read: nothing the routes use is called.
  const app = createDaemonHttpApi({
    turns: new DaemonTurns({ model: {} as never }),
    controlPlane: {} as never,
    startTurn: async () => undefined,
    defaultAgent: 'main',
    agents: ['main', 'ops'],
    maxBodyBytes: 64 * 1024,
    state: () => 'serving',
    version: VERSION,
  });
  const response = await app.request('/v1/openapi.json');
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('the published API document', () => {
  it('is OpenAPI 3.1 with every route, and the committed document is what the code serves', async () => {
    const document = await servedDocument();
    expect(document.openapi).toBe('3.1.0');
    const paths = Object.keys(document.paths as Record<string, unknown>).toSorted();
    expect(paths).toEqual(
      [
        '/healthz',
        '/v1/agents/{agent}/usage',
        '/v1/approvals',
        '/v1/approvals/{id}',
        '/v1/approvals/{id}/arguments',
        '/v1/brain/pages',
        '/v1/brain/pages/{id}',
        '/v1/brain/search',
        '/v1/events',
        '/v1/schedules',
        '/v1/session',
        '/v1/tools',
        '/v1/turns',
        '/v1/turns/{id}',
        '/v1/turns/{id}/cancel',
        '/v1/turns/{id}/events',
        '/v1/workflows',
        '/v1/workflows/{id}',
        '/v1/workflows/{id}/cancel',
      ].toSorted(),
    );
    // The agents a daemon serves are checked at run time, not baked into the document.
    expect(JSON.stringify(document)).not.toContain('"ops"');
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (process.env.UPDATE_API_DOCUMENT === '1') await writeFile(documentFile, text);
    expect(await readFile(documentFile, 'utf8')).toBe(text);
  });

  it("describes a tool-call-end event with core's one closed set of outcomes", async () => {
    const document = await servedDocument();
    const schemas = (document.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
    const event = schemas.ToolCallEndEvent as {
      properties: Record<string, { enum?: unknown }>;
      required: string[];
    };
    expect(event.properties.outcome?.enum).toEqual([...TOOL_CALL_OUTCOMES]);
    expect(event.required).toEqual(expect.arrayContaining(['outcome', 'isError', 'result']));
  });
});
