import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { type FakeRequest, type FakeResponse, startFakeResponsesServer } from '@switchyard/testkit';
import { daemonJson } from '../daemon/daemon-requests';
import { perSecond, ratio } from '../daemon/daemon-stats';
import { processCpuMs } from '../daemon/process-cpu';
import { BENCH_AGENT, type ServeDaemon, startServeDaemon } from '../daemon/serve-daemon';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../daemon/throwaway-postgres';
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

/** A workflow as `GET /v1/workflows` lists it (the fields the suite reads). */
interface ListedWorkflow {
  id: string;
  status: string;
  finishedAt: string | null;
  taskCounts: Record<string, number>;
}

/** The most tasks the control plane takes in one workflow (`MAX_WORKFLOW_TASKS`). */
const TASKS_PER_WORKFLOW = 50;

/** What every fleet size shares: the cluster, the fake model and the settings. */
interface FleetRun {
  postgres: ThrowawayPostgres;
  baseURL: string;
  tasks: number;
  workflows: number;
  pollSeconds: number;
}

/** The throw-away cluster with psql able to reach it, or why the suite cannot run. */
async function openFleetCluster(): Promise<ThrowawayPostgres | { skipped: string }> {
  const postgres = await startThrowawayPostgres({ statements: true });
  if ('skipped' in postgres) return postgres;
  try {
    // The suite creates its databases and reads the statistics with psql (the bench has no SQL client).
    psql(postgres.url, 'SELECT 1');
    return postgres;
  } catch (error) {
    await postgres.stop();
    return {
      skipped: `psql could not reach the throw-away cluster: ${(error as Error).message.split('\n')[0]}`,
    };
  }
}

/** A fresh database for one fleet size (with `pg_stat_statements` when preloaded); its URL. */
function createFleetDatabase(postgres: ThrowawayPostgres, size: number): string {
  const database = `fleet_${size}`;
  psql(postgres.url, `CREATE DATABASE ${database}`);
  const url = postgres.url.replace(/\/postgres$/, `/${database}`);
  if (postgres.statements) psql(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return url;
}

/** Starts the run's workflows at once, spread over the fleet; their ids. */
function startWorkflows(fleet: readonly ServeDaemon[], run: FleetRun): Promise<string[]> {
  return Promise.all(
    Array.from({ length: run.workflows }, async (_, workflow) => {
      const count = Math.min(TASKS_PER_WORKFLOW, run.tasks - workflow * TASKS_PER_WORKFLOW);
      const target = fleet[workflow % fleet.length];
      if (target === undefined) throw new Error('startWorkflows: the fleet is empty');
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
}

/** Polls the workflows every 500 ms until all have finished (or 10 minutes passed); the last listing of them. */
async function waitForWorkflows(daemon: ServeDaemon, ids: readonly string[]): Promise<ListedWorkflow[]> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const list: { workflows: ListedWorkflow[] } = await daemonJson(
      `${daemon.url}/v1/workflows?agent=${BENCH_AGENT}`,
    );
    const finished = list.workflows.filter((workflow) => ids.includes(workflow.id));
    if (finished.length === ids.length && finished.every((workflow) => workflow.finishedAt !== null))
      return finished;
    if (Date.now() > deadline) return finished;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The workflows that did not complete, and how many were not listed at all. */
function workflowProblems(finished: readonly ListedWorkflow[], ids: readonly string[]): string[] {
  const problems = finished
    .filter((workflow) => workflow.status !== 'completed')
    .map((workflow) => `workflow ${workflow.id} ${workflow.status} (${JSON.stringify(workflow.taskCounts)})`);
  if (finished.length !== ids.length) problems.push(`${ids.length - finished.length} workflows not listed`);
  return problems;
}

/** Statements per completed task, split by kind; NaN without counts. */
function statementsPerTask(counts: ReturnType<typeof statementCounts> | undefined, completed: number) {
  if (counts === undefined) {
    return {
      queriesPerTask: Number.NaN,
      pgbossPerTask: Number.NaN,
      switchyardPerTask: Number.NaN,
      otherPerTask: Number.NaN,
    };
  }
  return {
    queriesPerTask: counts.total / completed,
    pgbossPerTask: counts.pgboss / completed,
    switchyardPerTask: counts.switchyard / completed,
    otherPerTask: (counts.total - counts.pgboss - counts.switchyard) / completed,
  };
}

/** Runs every task on a fleet of `size` processes on a database of its own; the size's row. */
async function runFleetSize(size: number, run: FleetRun): Promise<GrowingFleetRow | undefined> {
  const { postgres } = run;
  const url = createFleetDatabase(postgres, size);
  const fleet: ServeDaemon[] = [];
  try {
    // One at a time: the first creates the schema and queues, the others find them.
    for (let index = 0; index < size; index += 1) {
      fleet.push(
        await startServeDaemon({
          baseURL: run.baseURL,
          database: { kind: 'postgres', url },
          serve: { pollSeconds: run.pollSeconds },
        }),
      );
    }
    const [first] = fleet;
    if (first === undefined) return undefined;
    if (postgres.statements) psql(url, 'SELECT pg_stat_statements_reset()');
    const start = Date.now();
    const cpuBefore = cpuNow(fleet, postgres);
    const ids = await startWorkflows(fleet, run);
    const finished = await waitForWorkflows(first, ids);
    const cpuAfter = cpuNow(fleet, postgres);
    const wallMs = Date.now() - start;
    const busy = (key: keyof typeof cpuAfter) => (cpuAfter[key] - cpuBefore[key]) / wallMs;
    const counts = postgres.statements ? statementCounts(url) : undefined;
    const end = Math.max(...finished.map((workflow) => Date.parse(workflow.finishedAt ?? '')));
    const completed = finished.reduce((sum, workflow) => sum + (workflow.taskCounts.completed ?? 0), 0);
    const problems = workflowProblems(finished, ids);
    const row: GrowingFleetRow = {
      processes: size,
      completed,
      tasksPerSecond: perSecond(completed, end - start),
      seconds: (end - start) / 1000,
      ...statementsPerTask(counts, completed),
      coresBusy: { serve: busy('serve'), postgres: busy('postgres'), bench: busy('bench') },
      problems,
    };
    report(
      `${size} process(es): tasks/s, queries per task`,
      `${row.tasksPerSecond.toFixed(1)}/s`,
      `${row.queriesPerTask.toFixed(1)} (pg-boss ${row.pgbossPerTask.toFixed(1)}, ours ${row.switchyardPerTask.toFixed(1)}), cores busy ${(row.coresBusy.serve + row.coresBusy.postgres + row.coresBusy.bench).toFixed(2)}${problems.length === 0 ? '' : ` ${problems.join('; ')}`}`,
    );
    return row;
  } finally {
    await Promise.all(fleet.map((daemon) => daemon.stop()));
  }
}

/**
 * 1, 2 and 4 `serve` processes on one throw-away PostgreSQL (a fresh database per size) running
 * 400 workflow tasks (8 workflows of 50: the control plane's limit per workflow) with the fake
 * model; tasks/s, the scaling ratio and PostgreSQL statements per task (`pg_stat_statements`).
 */
export async function growingFleet(options: GrowingFleetOptions = {}): Promise<GrowingFleetResult> {
  const sizes = options.sizes ?? [1, 2, 4];
  const tasks = options.tasks ?? 400;
  const workflows = Math.ceil(tasks / TASKS_PER_WORKFLOW);
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
  const postgres = await openFleetCluster();
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
  const counting = postgres.statements
    ? '`pg_stat_statements` (preloaded in the throw-away cluster; top-level statements of every client, BEGIN/COMMIT included), reset before each run and summed after it; the statements of the benchmark polling `GET /v1/workflows` every 500 ms are included'
    : 'not counted: `pg_stat_statements` could not be preloaded in the throw-away cluster';
  const fake = await startFakeResponsesServer({ record: false, script: taskScript });
  const rows: GrowingFleetRow[] = [];
  try {
    const run: FleetRun = { postgres, baseURL: fake.baseURL, tasks, workflows, pollSeconds };
    for (const size of sizes) {
      const row = await runFleetSize(size, run);
      if (row !== undefined) rows.push(row);
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
