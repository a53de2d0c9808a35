import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type FakeScriptStep, startFakeResponsesServer } from '@switchyard/testkit';
import { parseConfig } from './config/load-config';
import { resolveAgent } from './config/resolve-agent';
import { resolveModelEndpoint } from './config/resolve-model-endpoint';
import { type CommandIO, createWorkerModel, runTextTurnWithProgress } from './run-text-turn';
import { openWorkerServices } from './worker-services';

const PAGE = `<!doctype html>
<html><head><title>Switchyard 0.1 release notes</title></head>
<body><main><h1>Switchyard 0.1</h1>
<p>Tools are assembled per turn from an explicit, ordered array.</p>
<ul><li>A bounded repair ladder between the model and every tool.</li>
<li>Durable schedules on embedded PGlite or PostgreSQL.</li></ul></main></body></html>`;

const PLAN = `# Demo plan

- [x] write this file
- [ ] count its lines with a command
- [ ] read the release notes page
- [ ] schedule a weekday digest
`;

/** The recorded script the fake model plays: one response per model request. */
export function demoScript(pageUrl: string): FakeScriptStep[] {
  return [
    {
      text: 'I will plan the work, then write the plan into my home.',
      functionCalls: [
        {
          name: 'update_todos',
          arguments: {
            todos: [
              { content: 'Write notes/plan.md', status: 'in_progress' },
              { content: 'Count its lines with a command', status: 'pending' },
              { content: 'Read the release notes page', status: 'pending' },
              { content: 'Schedule a weekday digest', status: 'pending' },
            ],
          },
        },
        { name: 'write_file', arguments: { path: 'notes/plan.md', content: PLAN } },
      ],
    },
    { functionCalls: [{ name: 'run_command', arguments: { command: 'wc -l notes/plan.md' } }] },
    { functionCalls: [{ name: 'web_fetch', arguments: { url: pageUrl } }] },
    {
      functionCalls: [
        {
          name: 'create_schedule',
          arguments: {
            name: 'weekday-digest',
            prompt: 'Summarise notes/plan.md and anything new in the release notes.',
            cron: '0 9 * * 1-5',
          },
        },
      ],
    },
    {
      text:
        'Done. I wrote notes/plan.md (6 lines, counted with wc), read the Switchyard 0.1 release notes ' +
        '(per-turn tool arrays, a repair ladder, durable schedules) and scheduled "weekday-digest" for ' +
        '09:00 UTC on weekdays.',
      textChunks: 8,
    },
  ];
}

async function startPageServer(): Promise<{ server: Server; url: string; port: number }> {
  const server = createServer((request, response) => {
    if (request.url === '/release-notes.html') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(PAGE);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/release-notes.html`, port };
}

/**
 * `switchyard demo`: a whole offline turn. A fake OpenAI Responses server on 127.0.0.1 plays a
 * recorded script (the model is scripted, and the demo says so); everything else is real: the
 * composed tools, the agent loop over the `openai` SDK, a temporary agent home, a local web page
 * fetched through `web_fetch`'s guard, and a schedule stored in an embedded PGlite database.
 * Everything lives in a temporary folder removed at the end.
 *
 * Contract: resolves with the exit code (0 when the turn completed).
 */
export async function runDemo(io: CommandIO & { json?: boolean; interactive?: boolean }): Promise<number> {
  const say = (line: string) => {
    if (io.json !== true) io.stdout.write(`${line}\n`);
  };
  say('Switchyard demo: the model is scripted.');
  say('A fake OpenAI Responses server on 127.0.0.1 replays a recorded script; no real model is called');
  say('and nothing leaves this machine. The tools, the agent loop, the files, the command, the web fetch');
  say('and the database are real.');
  say('');
  const root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-demo-'));
  const page = await startPageServer();
  const fake = await startFakeResponsesServer({ script: demoScript(page.url) });
  try {
    const config = parseConfig(
      {
        model: { name: 'scripted-demo-model', baseURL: fake.baseURL, maxRetries: 0 },
        categories: {
          computer: { homeRoot: 'homes' },
          web: { fetch: { allowedTargets: [`127.0.0.1:${page.port}`] } },
          schedule: {},
        },
        database: { dataDir: 'db' },
      },
      // The operator's OPENAI_* variables must not redirect the scripted turn.
      { env: {}, baseDir: root },
    );
    const agent = resolveAgent(config, 'demo');
    say(`Agent home: ${agent.home}`);
    say('Opening the embedded database (PGlite, a few seconds the first time)...');
    const opened = await openWorkerServices(config);
    try {
      say('');
      const prompt =
        'Plan the work, write notes/plan.md, count its lines, read the release notes at ' +
        `${page.url} and schedule a weekday digest.`;
      say(`> ${prompt}`);
      say('');
      const result = await runTextTurnWithProgress({
        config,
        agent,
        prompt,
        model: createWorkerModel(config, resolveModelEndpoint(config)),
        services: opened.services,
        json: io.json === true,
        confirmDestructive: false,
        io,
        ...(io.interactive === undefined ? {} : { interactive: io.interactive }),
      });
      say('');
      say('What the turn left behind:');
      const plan = await readFile(path.join(agent.home, 'notes/plan.md'), 'utf8').catch(() => undefined);
      say(
        plan === undefined
          ? '- notes/plan.md is missing'
          : `- ${path.join(agent.home, 'notes/plan.md')}: ${plan.split('\n').length - 1} lines`,
      );
      const schedules = (await opened.controlPlane?.schedules.listSchedules({ agentId: agent.id })) ?? [];
      for (const schedule of schedules) {
        say(
          `- schedule ${schedule.name} in the database: cron "${schedule.cron}" in ${schedule.timeZone}, next ${schedule.nextFireTimes[0] ?? 'none'}`,
        );
      }
      say(`- ${fake.requests.length} requests to the scripted model`);
      return result.status === 'completed' ? 0 : 1;
    } finally {
      await opened.close();
    }
  } finally {
    await fake.close().catch(() => {});
    await new Promise<void>((resolve) => page.server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  }
}
