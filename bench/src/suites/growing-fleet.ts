import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { type FakeRequest, type FakeResponse, startFakeResponsesServer } from '@switchyard/testkit';
import { daemonJson } from '../daemon/daemon-requests';
import { perSecond, ratio } from '../daemon/daemon-stats';
import { processCpuMs } from '../daemon/process-cpu';
import { BENCH_AGENT, type ServeDaemon, startServeDaemon } from '../daemon/serve-daemon';
import { startThrowawayPostgres } from '../daemon/throwaway-postgres';
import { heading, report } from '../measure';

/** CPU milliseconds so far of the fleet's processes, the PostgreSQL server and this process. */
function cpuNow(fleet: readonly ServeDaemon[], postgres: { cpuMs(): number }) {
  const own = process.cpuUsage();
  return {
    serve: fleet.reduce((sum, daemon) => sum + processCpuMs(daemon.pid), 0),
    postgres: postgres.cpuMs(),
    bench: (own.user + own.system) / 1000,
  };
}

/** The scaling target of issue 23: 4 processes at least 3x one. */
export const FLEET_SCALING_TARGET = 3;

/** One fleet size. */
export interface GrowingFleetRow {
  /** `serve` processes. */
  processes: number;
  /** Tasks completed. */
  completed: number;
  /** Tasks completed per second, first POST to the last workflow's `finishedAt`. */
  tasksPerSecond: number;
  /** Seconds from the first POST to the last workflow's end. */
  seconds: number;
  /** Statements PostgreSQL ran during the run (`pg_stat_statements` calls), per task; NaN without it. */
  queriesPerTask: number;
  /** Of those, statements on pg-boss's tables (`pgboss.`). */
  pgbossPerTask: number;
  /** Of those, statements on Switchyard's tables (`switchyard.`). */
  switchyardPerTask: number;
  /** The rest (BEGIN, COMMIT, SET, advisory locks, ...). */
  otherPerTask: number;
  /**
   * Cores kept busy on average over the run (CPU time from `/proc` and `process.cpuUsage` over its
   * wall time, first POST to the last workflow seen finished): the `serve` processes together, the
   * PostgreSQL server (the postmaster and its children), and the benchmark's own process (the fake
   * model, the POSTs and the polling).
   */
  coresBusy: { serve: number; postgres: number; bench: number };
  /** Problems (workflows not completed). */
  problems: string[];
}

/** What the growing-fleet benchmark found. */
export interface GrowingFleetResult {
  date: string;
  node: string;
  cores: number;
  /** 1-minute load average before and after. */
  load: [before: number, after: number];
  /** Tasks in all. */
  tasks: number;
  /** Workflows they were split into (a workflow holds at most 50 tasks). */
  workflows: number;
  /** Each process's `serve.pollSeconds`. */
  pollSeconds: number;
  /** Why the suite did not run, when it did not. */
  skipped?: string;
  /** How queries were counted. */
  counting: string;
  rows: GrowingFleetRow[];
  /** 4 processes' tasks/s over one's. */
  scaling: number;
}

const RESULT_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

/** The task turn's model: submit a summary, then a short text once the result was accepted. */
function taskScript(request: FakeRequest): FakeResponse {
  return request.functionCallOutputs.length === 0
    ? { functionCalls: [{ name: 'submit_result', arguments: { summary: 'done' }, chunks: 1 }] }
    : { text: 'Submitted.', textChunks: 1 };
}

/** Runs one SQL text with psql against `url` and returns its unaligned output. */
function psql(url: string, sql: string): string {
  return execFileSync('psql', [url, '-X', '-q', '-A', '-t', '-c', sql], { encoding: 'utf8' }).trim();
}

/** Statement counts by kind since the last reset. */
function statementCounts(url: string): { total: number; pgboss: number; switchyard: number } {
  const line = psql(
    url,
    `SELECT coalesce(sum(calls), 0), coalesce(sum(calls) FILTER (WHERE query ILIKE '%pgboss.%'), 0),
            coalesce(sum(calls) FILTER (WHERE query ILIKE '%switchyard.%' AND query NOT ILIKE '%pgboss.%'), 0)
       FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%'`,
  );
  const [total, pgboss, switchyard] = line.split('|').map(Number);
  return { total: total ?? Number.NaN, pgboss: pgboss ?? Number.NaN, switchyard: switchyard ?? Number.NaN };
}

/** Options of the growing-fleet benchmark. */
export interface GrowingFleetOptions {
  /** Fleet sizes (default 1, 2, 4). */
  sizes?: readonly number[];
  /** Tasks in all (default 400), in workflows of at most 50. */
  tasks?: number;
  /** Each process's `serve.pollSeconds` (default 2, the worker's default). */
  pollSeconds?: number;
}

/**
 * 1, 2 and 4 `serve` processes on one throw-away PostgreSQL (a fresh database per size) running
 * 400 workflow tasks (8 workflows of 50: the control plane's limit per workflow) with the fake
 * model; tasks/s, the scaling ratio and PostgreSQL statements per task (`pg_stat_statements`).
 */
export async function growingFleet(options: GrowingFleetOptions = {}): Promise<GrowingFleetResult> {
  const sizes = options.sizes ?? [1, 2, 4];
  const tasks = options.tasks ?? 400;
  const perWorkflow = 50;
  const workflows = Math.ceil(tasks / perWorkflow);
  const pollSeconds = options.pollSeconds ?? 2;
  const before = os.loadavg()[0] ?? Number.NaN;
  const base = {
    date: new Date().toISOString(),
    node: process.version,
    cores: os.cpus().length,
    tasks,
    workflows,
    pollSeconds,
  };
  heading(
    `Growing fleet: ${tasks} workflow tasks on ${sizes.join(', ')} serve processes (load ${before.toFixed(1)})`,
  );
  const postgres = await startThrowawayPostgres({ statements: true });
  if ('skipped' in postgres) {
    report('growing fleet', 'skipped', postgres.skipped);
    return {
      ...base,
      load: [before, os.loadavg()[0] ?? Number.NaN],
      skipped: postgres.skipped,
      counting: '-',
      rows: [],
      scaling: Number.NaN,
    };
  }
  try {
    // The suite creates its databases and reads the statistics with psql (the bench has no SQL client).
    psql(postgres.url, 'SELECT 1');
  } catch (error) {
    await postgres.stop();
    const skipped = `psql could not reach the throw-away cluster: ${(error as Error).message.split('\n')[0]}`;
    report('growing fleet', 'skipped', skipped);
    return {
      ...base,
      load: [before, os.loadavg()[0] ?? Number.NaN],
      skipped,
      counting: '-',
      rows: [],
      scaling: Number.NaN,
    };
  }
  const counting = postgres.statements
    ? '`pg_stat_statements` (preloaded in the throw-away cluster; top-level statements of every client, BEGIN/COMMIT included), reset before each run and summed after it; the statements of the benchmark polling `GET /v1/workflows` every 500 ms are included'
    : 'not counted: `pg_stat_statements` could not be preloaded in the throw-away cluster';
  const fake = await startFakeResponsesServer({ record: false, script: taskScript });
  const rows: GrowingFleetRow[] = [];
  try {
    for (const size of sizes) {
      const database = `fleet_${size}`;
      psql(postgres.url, `CREATE DATABASE ${database}`);
      const url = postgres.url.replace(/\/postgres$/, `/${database}`);
      if (postgres.statements) psql(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      const fleet: ServeDaemon[] = [];
      try {
        // One at a time: the first creates the schema and queues, the others find them.
        for (let index = 0; index < size; index += 1) {
          fleet.push(
            await startServeDaemon({
              baseURL: fake.baseURL,
              database: { kind: 'postgres', url },
              serve: { pollSeconds },
            }),
          );
        }
        const [first] = fleet;
        if (first === undefined) continue;
        if (postgres.statements) psql(url, 'SELECT pg_stat_statements_reset()');
        const start = Date.now();
        const cpuBefore = cpuNow(fleet, postgres);
        const ids = await Promise.all(
          Array.from({ length: workflows }, async (_, workflow) => {
            const count = Math.min(perWorkflow, tasks - workflow * perWorkflow);
            const target = fleet[workflow % fleet.length] ?? first;
            const created: { id: string } = await daemonJson(`${target.url}/v1/workflows`, {
              body: {
                agent: BENCH_AGENT,
                name: `fleet ${workflow}`,
                tasks: Array.from({ length: count }, (_, task) => ({
                  id: `t${task}`,
                  prompt: `task ${task} of workflow ${workflow}`,
                  resultSchema: RESULT_SCHEMA,
                })),
              },
              expect: 201,
            });
            return created.id;
          }),
        );
        const deadline = Date.now() + 600_000;
        let finished: Array<{
          id: string;
          status: string;
          finishedAt: string | null;
          taskCounts: Record<string, number>;
        }> = [];
        for (;;) {
          const list: { workflows: typeof finished } = await daemonJson(
            `${first.url}/v1/workflows?agent=${BENCH_AGENT}`,
          );
          finished = list.workflows.filter((workflow) => ids.includes(workflow.id));
          if (finished.length === ids.length && finished.every((workflow) => workflow.finishedAt !== null))
            break;
          if (Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        const cpuAfter = cpuNow(fleet, postgres);
        const wallMs = Date.now() - start;
        const busy = (key: keyof typeof cpuAfter) => (cpuAfter[key] - cpuBefore[key]) / wallMs;
        const counts = postgres.statements ? statementCounts(url) : undefined;
        const end = Math.max(...finished.map((workflow) => Date.parse(workflow.finishedAt ?? '')));
        const completed = finished.reduce((sum, workflow) => sum + (workflow.taskCounts.completed ?? 0), 0);
        const problems = finished
          .filter((workflow) => workflow.status !== 'completed')
          .map(
            (workflow) =>
              `workflow ${workflow.id} ${workflow.status} (${JSON.stringify(workflow.taskCounts)})`,
          );
        if (finished.length !== ids.length)
          problems.push(`${ids.length - finished.length} workflows not listed`);
        const row: GrowingFleetRow = {
          processes: size,
          completed,
          tasksPerSecond: perSecond(completed, end - start),
          seconds: (end - start) / 1000,
          queriesPerTask: counts === undefined ? Number.NaN : counts.total / completed,
          pgbossPerTask: counts === undefined ? Number.NaN : counts.pgboss / completed,
          switchyardPerTask: counts === undefined ? Number.NaN : counts.switchyard / completed,
          otherPerTask:
            counts === undefined
              ? Number.NaN
              : (counts.total - counts.pgboss - counts.switchyard) / completed,
          coresBusy: { serve: busy('serve'), postgres: busy('postgres'), bench: busy('bench') },
          problems,
        };
        rows.push(row);
        report(
          `${size} process(es): tasks/s, queries per task`,
          `${row.tasksPerSecond.toFixed(1)}/s`,
          `${row.queriesPerTask.toFixed(1)} (pg-boss ${row.pgbossPerTask.toFixed(1)}, ours ${row.switchyardPerTask.toFixed(1)}), cores busy ${(row.coresBusy.serve + row.coresBusy.postgres + row.coresBusy.bench).toFixed(2)}${problems.length === 0 ? '' : ` ${problems.join('; ')}`}`,
        );
      } finally {
        await Promise.all(fleet.map((daemon) => daemon.stop()));
      }
    }
  } finally {
    await fake.close().catch(() => {});
    await postgres.stop();
  }
  const one = rows.find((row) => row.processes === 1)?.tasksPerSecond ?? Number.NaN;
  const four = rows.find((row) => row.processes === 4)?.tasksPerSecond ?? Number.NaN;
  return {
    ...base,
    load: [before, os.loadavg()[0] ?? Number.NaN],
    counting,
    rows,
    scaling: ratio(four, one),
  };
}
