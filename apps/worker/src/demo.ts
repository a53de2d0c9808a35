import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  type FakeRequest,
  type FakeResponse,
  type FakeScriptStep,
  startFakeResponsesServer,
  toolCallStep,
} from '@switchyard/testkit';
import type { WorkflowDetails } from '@switchyard/tools-workflow';
import { parseConfig } from './config/load-config';
import { resolveAgent } from './config/resolve-agent';
import { resolveModelEndpoint } from './config/resolve-model-endpoint';
import { createWorkerModel } from './model/worker-model';
import type { TurnProgress } from './progress/turn-progress';
import { type CommandIO, runTextTurnWithProgress } from './run-text-turn';
import { startTaskTurnConsumer } from './task-turn-consumer';
import { buildTaskTurnBrainTools, buildTaskTurnWebTools } from './text-turn';
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
    toolCallStep('run_command', { command: 'wc -l notes/plan.md' }),
    toolCallStep('web_fetch', { url: pageUrl }),
    toolCallStep('create_schedule', {
      name: 'weekday-digest',
      prompt: 'Summarise notes/plan.md and anything new in the release notes.',
      cron: '0 9 * * 1-5',
    }),
    toolCallStep('workflow', {
      name: 'release-check',
      tasks: [
        {
          id: 'count-features',
          prompt: 'Count the features listed in the Switchyard 0.1 release notes.',
          resultSchema: {
            type: 'object',
            additionalProperties: false,
            properties: { features: { type: 'integer' } },
            required: ['features'],
          },
        },
        {
          id: 'headline',
          prompt: 'Write a one-line headline for the Switchyard 0.1 release.',
          resultSchema: {
            type: 'object',
            additionalProperties: false,
            properties: { headline: { type: 'string' } },
            required: ['headline'],
          },
        },
      ],
    }),
    {
      text:
        'Done. I wrote notes/plan.md (6 lines, counted with wc), read the Switchyard 0.1 release notes ' +
        '(per-turn tool arrays, a repair ladder, durable schedules) and scheduled "weekday-digest" for ' +
        '09:00 UTC on weekdays, and started the release-check workflow: its two tasks run as sub-agents and submit their results.',
      textChunks: 8,
    },
  ];
}

/** What a task turn's scripted model answers: its result, through `submit_result`. */
const TASK_RESULTS: Record<string, Record<string, unknown>> = {
  'count-features': { features: 2 },
  headline: { headline: 'Switchyard 0.1: tools assembled per turn, schedules that last' },
};

/**
 * One script for every turn of the demo: task turns (recognised by their sub-agent instructions)
 * submit their recorded result; the main turn plays `demoScript` step by step, the step chosen by
 * how many call outputs its transcript holds (task turns run concurrently with it).
 */
function demoModel(pageUrl: string): (request: FakeRequest) => FakeResponse {
  const steps = demoScript(pageUrl) as FakeResponse[];
  const outputsBefore = [0];
  for (const step of steps)
    outputsBefore.push((outputsBefore.at(-1) ?? 0) + (step.functionCalls?.length ?? 0));
  return (request) => {
    const instructions = String(request.body.instructions ?? '');
    const task = /sub-agent working on task "([^"]+)"/.exec(instructions)?.[1];
    if (task !== undefined) {
      return toolCallStep('submit_result', TASK_RESULTS[task] ?? {});
    }
    const index = outputsBefore.indexOf(request.functionCallOutputs.length);
    const step = steps[index];
    if (step === undefined)
      throw new Error(`demo script: no step after ${request.functionCallOutputs.length} outputs`);
    return step;
  };
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

async function waitForWorkflow(
  workflows: {
    listWorkflows(request: { agentId: string }): Promise<Array<{ id: string }>>;
    showWorkflow(request: { agentId: string; workflowId: string }): Promise<WorkflowDetails | null>;
  },
  agentId: string,
): Promise<WorkflowDetails | undefined> {
  const [first] = await workflows.listWorkflows({ agentId });
  if (first === undefined) return undefined;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const details = await workflows.showWorkflow({ agentId, workflowId: first.id });
    if (details === null) return undefined;
    if (details.status !== 'running' || Date.now() > deadline) return details;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * `switchyard demo`: a whole offline turn. A fake OpenAI Responses server on 127.0.0.1 plays a
 * recorded script (the model is scripted, and the demo says so); everything else is real: the
 * composed tools, the agent loop over the `openai` SDK, a temporary agent home, a local web page
 * fetched through `web_fetch`'s guard, a schedule stored in an embedded PGlite database, and a
 * two-task workflow whose tasks run as sub-agent turns and submit their results into it.
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
  const fake = await startFakeResponsesServer({ script: demoModel(page.url) });
  try {
    const config = parseConfig(
      {
        model: { name: 'scripted-demo-model', baseURL: fake.baseURL, maxRetries: 0 },
        categories: {
          computer: { homeRoot: 'homes' },
          web: { fetch: { allowedTargets: [`127.0.0.1:${page.port}`] } },
          schedule: {},
          workflow: {},
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
    const controlPlane = opened.controlPlane;
    if (controlPlane === undefined) throw new Error('the demo needs the control plane');
    const model = createWorkerModel(config.model, resolveModelEndpoint(config));
    let progress: TurnProgress | undefined;
    // Workflow tasks run as sub-agent turns in this process, as the daemon would run them.
    const webTools = buildTaskTurnWebTools(config);
    const brainTools = buildTaskTurnBrainTools(config, controlPlane.brain);
    const consumer = await startTaskTurnConsumer({
      controlPlane,
      agentId: agent.id,
      model,
      ...(webTools === undefined ? {} : { webTools }),
      ...(brainTools === undefined ? {} : { brainTools }),
      onEvent: (turn, event) => {
        if (event.type !== 'tool-call-end' || turn.kind !== 'workflow-task') return;
        const line = `${event.outcome === 'completed' ? '✓' : '✗'} [task ${turn.taskId}] ${event.activity}`;
        if (progress !== undefined) progress.note(line);
        else if (io.json !== true) io.stdout.write(`${line}\n`);
      },
    });
    try {
      say('');
      const prompt =
        'Plan the work, write notes/plan.md, count its lines, read the release notes at ' +
        `${page.url}, schedule a weekday digest and start a two-task release-check workflow.`;
      say(`> ${prompt}`);
      say('');
      const result = await runTextTurnWithProgress({
        config,
        agent,
        prompt,
        model,
        onProgress: (renderer) => {
          progress = renderer;
        },
        services: opened.services,
        json: io.json === true,
        confirmDestructive: false,
        io,
        ...(io.interactive === undefined ? {} : { interactive: io.interactive }),
      });
      const workflow = await waitForWorkflow(controlPlane.workflows, agent.id);
      progress = undefined;
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
      if (workflow === undefined) say('- no workflow');
      else {
        say(`- workflow ${workflow.name} (${workflow.id}): ${workflow.status}`);
        for (const task of workflow.tasks) {
          say(`  - task ${task.id}: ${task.status}, result in the database: ${JSON.stringify(task.result)}`);
        }
      }
      say(`- ${fake.requests.length} requests to the scripted model`);
      return result.status === 'completed' && workflow?.status === 'completed' ? 0 : 1;
    } finally {
      await consumer.stop();
      await opened.close();
    }
  } finally {
    await fake.close().catch(() => {});
    await new Promise<void>((resolve) => page.server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  }
}
