import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type ControlPlane, openControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import {
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
  type TestDatabase,
} from '@switchyard/test-databases';
import { type FakeResponsesServer, startFakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from './__fixtures__/scripted-model';
import { summarySchema } from './__fixtures__/summary-schema';

const here = path.dirname(fileURLToPath(import.meta.url));
const workerScript = path.join(here, '__fixtures__/work-turn-worker.ts');
const AGENT = 'crash-agent';

interface WorkerEvent {
  event: string;
  task?: string;
  pid?: number;
  message?: string;
}

class WorkerProcess {
  readonly child: ChildProcess;
  readonly events: WorkerEvent[] = [];
  stderr = '';
  readonly exited: Promise<NodeJS.Signals | number | null>;
  readonly #waiters: Array<{ match: (event: WorkerEvent) => boolean; resolve: () => void }> = [];

  constructor(databaseUrl: string, baseURL: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', workerScript, databaseUrl, AGENT, baseURL], {
      cwd: path.resolve(here, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as WorkerEvent);
      } catch {
        return;
      }
      for (const waiter of [...this.#waiters]) {
        if (this.events.some(waiter.match)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  }

  next(match: (event: WorkerEvent) => boolean, timeoutMs = 60_000): Promise<void> {
    if (this.events.some(match)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `worker event timed out; events: ${JSON.stringify(this.events)}; stderr: ${this.stderr}`,
            ),
          ),
        timeoutMs,
      );
      this.#waiters.push({
        match,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}

describe.runIf(postgresUrl !== null)(`${postgresTitle}: a worker killed mid-task`, () => {
  let database: TestDatabase;
  let controlPlane: ControlPlane | undefined;
  let server: FakeResponsesServer;
  const workers: WorkerProcess[] = [];
  let taskRequests = 0;
  let firstRequest: () => void = () => {};
  const firstRequestSeen = new Promise<void>((resolve) => {
    firstRequest = resolve;
  });

  beforeAll(async () => {
    database = await createPostgresDatabase(postgresUrl ?? '');
    server = await startFakeResponsesServer({
      script: (request) => {
        if (!promptOf(request).startsWith('TASK crash'))
          throw new Error(`unexpected prompt ${promptOf(request)}`);
        taskRequests += 1;
        if (taskRequests === 1) {
          firstRequest();
          // The worker is killed while it waits for this answer.
          return { delayMs: 30_000, text: 'never delivered' };
        }
        return toolCallStep('submit_result', { summary: 'survived' });
      },
    });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await controlPlane?.close();
    await server?.close().catch(() => {});
    await database?.dispose();
  });

  it('redelivers the task to a restarted worker, which completes it with exactly one stored result', async () => {
    const { databaseUrl } = database.options as { databaseUrl: string };
    const first = new WorkerProcess(databaseUrl, server.baseURL);
    workers.push(first);
    await first.next((event) => event.event === 'ready');
    controlPlane = await openControlPlane({
      databaseUrl,
      environment: {},
      workTurns: { expireInSeconds: 2, retryLimit: 3, retryDelaySeconds: 0 },
    });
    const workflow = await controlPlane.workflows.startWorkflow({
      agentId: AGENT,
      spec: {
        name: 'crash',
        tasks: [{ id: 'crash', prompt: 'TASK crash: survive', resultSchema: summarySchema }],
      },
    });

    await firstRequestSeen;
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const restarted = new WorkerProcess(databaseUrl, server.baseURL);
    workers.push(restarted);

    const deadline = Date.now() + 60_000;
    let status = 'running';
    while (Date.now() < deadline && status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status =
        (await controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId: workflow.id }))?.status ??
        '';
    }
    const shown = await controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId: workflow.id });
    expect(shown?.status).toBe('completed');
    expect(shown?.tasks[0]).toMatchObject({ status: 'completed', result: { summary: 'survived' } });
    expect(shown?.tasks[0]?.attempts).toBeGreaterThanOrEqual(2);
    const { rows } = await queryControlPlane<{ count: number }>(
      controlPlane,
      'SELECT count(*)::int AS count FROM switchyard.task_results WHERE workflow_id = $1',
      [workflow.id],
    );
    expect(rows[0]?.count).toBe(1);
    expect(taskRequests).toBe(2);
    expect(first.events.some((event) => event.event === 'turn-end')).toBe(false);
    // The restarted worker prints its turn's end after the result is stored: the line can reach this
    // process after the workflow reads completed.
    await restarted.next((event) => event.event === 'turn-end');
    expect(restarted.events.filter((event) => event.event === 'turn-end')).toHaveLength(1);
  });
});
