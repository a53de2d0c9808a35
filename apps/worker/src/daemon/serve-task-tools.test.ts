import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type FakeRequest, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcStdioServer, installCalcSkill } from '../__fixtures__/mcp-fixture';
import { runCli } from '../__fixtures__/run-cli';
import { idInOutput, isTaskTurn, outputsOf, promptOf } from '../__fixtures__/scripted-model';
import { summarySchema } from '../__fixtures__/summary-schema';
import { requestJson, waitFor, waitForTurnEnd } from './__fixtures__/http-client';
import { type FakeModelServe, ServeFolder } from './__fixtures__/serve-folder';

const MARKER = 'release-notes-marker-7f3a';

describe('switchyard serve: the tools of task turns and of MCP-backed Skills (embedded PGlite)', () => {
  let page: Server;
  let pageUrl: string;
  let served: FakeModelServe;

  beforeAll(async () => {
    page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html><head><title>Release notes</title></head><body><main><h1>Release notes</h1><p>The build passed: ${MARKER}.</p></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const pagePort = (page.address() as AddressInfo).port;
    pageUrl = `http://127.0.0.1:${pagePort}/notes`;
    served = await ServeFolder.serveOnFakeModel('task-tools', {
      // An MCP-backed Skill in the agent's home: its server is the calc stdio server.
      prepare: (folder) => installCalcSkill(path.join(folder.path, 'homes/main')),
      settings: {
        categories: {
          computer: { homeRoot: 'homes' },
          web: { fetch: { allowedTargets: [`127.0.0.1:${pagePort}`] } },
          workflow: {},
          mcp: {
            servers: { calc: { command: process.execPath, args: [calcStdioServer], deferLoading: true } },
          },
        },
        serve: { pollSeconds: 0.5 },
      },
      script: (request) => {
        const outputs = outputsOf(request);
        if (isTaskTurn(request)) {
          if (outputs.length === 0) return toolCallStep('web_fetch', { url: pageUrl });
          if (outputs.length === 1) {
            const found = outputs[0]?.includes(MARKER) ? MARKER : 'marker not found';
            return toolCallStep('submit_result', { summary: found });
          }
          return { text: 'The result was stored.' };
        }
        const prompt = promptOf(request);
        if (outputs.length > 0) return { text: 'Done.' };
        if (prompt === 'check the release') {
          return toolCallStep('workflow', {
            name: 'release check',
            tasks: [{ id: 'read', prompt: `Read ${pageUrl} and summarise it`, resultSchema: summarySchema }],
          });
        }
        return toolCallStep('run_command', { command: 'mcporter call calc.add a=2 b=3' });
      },
    });
  }, 180_000);

  afterAll(async () => {
    await served?.folder.remove();
    await new Promise((resolve) => page?.close(resolve));
  }, 120_000);

  const finished = async (id: string) => (await waitForTurnEnd(served.url, id)).body;

  it('runs an MCP-backed Skill through run_command: mcporter reaches the Skill’s server', async () => {
    const { fake, url } = served;
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'add two and three' } });
    expect(await finished(started.body.id as string)).toMatchObject({ status: 'completed', output: 'Done.' });
    const request = fake.requests.find(
      (entry) => promptOf(entry) === 'add two and three' && entry.functionCallOutputs.length > 0,
    );
    expect(String(request?.body.instructions)).toContain('mcporter call calc.<tool>');
    const output = outputsOf(request as FakeRequest)[0] ?? '';
    expect(output).toMatch(/exit code 0|exited 0/i);
    expect(output).toMatch(/\b5\b/);
  });

  it('logs the MCP tools it left out at start-up, each with why', () => {
    expect(served.serve.log).toMatch(/^switchyard serve: MCP tool calc\.research left out: .*task/m);
    expect(served.serve.log).toMatch(/^switchyard serve: MCP tool calc\.broken_schema left out: /m);
  });

  it('gives a workflow task turn the configured web tools: it fetches a local page and submits from it', async () => {
    const { folder, config, fake, serve, url } = served;
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'check the release' } });
    expect(await finished(started.body.id as string)).toMatchObject({ status: 'completed' });
    const taskTools = await waitFor('the task turn', () => fake.requests.find(isTaskTurn));
    // The configuration enables web_fetch (no search profile), and task turns get it.
    expect(taskTools.toolNames).toEqual(['web_fetch', 'submit_result']);
    // The task turn fetched the page, then submitted what it read (a stored result ends its turn).
    const submitting = await waitFor('the task turn to submit', () =>
      fake.requests.find((request) => isTaskTurn(request) && request.functionCallOutputs.length === 1),
    );
    expect(outputsOf(submitting)[0]).toContain(MARKER);
    const workflowId = idInOutput(fake.requests, 'check the release', 'release check');
    expect(workflowId).toBeDefined();
    // The embedded database is the daemon's while it runs: read the stored result once it has
    // stopped (SIGTERM lets the running task turn finish first).
    await serve.terminate();
    const shown = await runCli(['workflows', 'show', workflowId as string, '--config', config], {
      cwd: folder.path,
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(': completed');
    expect(shown.stdout).toContain(`result: {"summary":"${MARKER}"}`);
  }, 120_000);
});
