import PgBoss from 'pg-boss';
import { ApprovalStore } from './approvals/approval-store';
import type { BrainOptions } from './brain/brain-limits';
import { ControlPlaneBrainService } from './brain/brain-service';
import { AgentBudgetStore, type AgentStartLimitsOf } from './budgets/agent-budget-store';
import { rememberControlPlaneDatabase } from './database/control-plane-database';
import type { DataDirLockLoss } from './database/data-dir-lock';
import type { Database } from './database/database';
import { openPgliteDatabase } from './database/open-pglite-database';
import { openPostgresDatabase } from './database/open-postgres-database';
import { runMigrations } from './database/run-migrations';
import { IdempotencyStore } from './idempotency/idempotency-store';
import { bossDatabase } from './queues/boss-database';
import { type QueueDepth, queueDepths } from './queues/queue-depths';
import { type ControlPlaneSettings, resolveControlPlaneSettings } from './resolve-control-plane-settings';
import { resolveDatabaseTarget } from './resolve-database-target';
import { routeTurnUnits } from './route-turn-units';
import { ControlPlaneScheduleService, type ScheduleLimits } from './schedules/schedule-service';
import { ScheduleTicker } from './schedules/schedule-ticker';
import { type TurnRequestOptions, TurnRequestQueue } from './turn-requests/turn-request-queue';
import { TurnJournalStore } from './turns/turn-journal-store';
import { TurnStore } from './turns/turn-store';
import { WorkStore } from './work/work-store';
import { ControlPlaneBackgroundJobService } from './workflows/background-job-service';
import { type WorkTurnOptions, WorkTurnQueue } from './workflows/work-turn-queue';
import { ControlPlaneWorkflowService } from './workflows/workflow-service';

/** What `openControlPlane` takes. Every field is optional. */
export interface ControlPlaneOptions {
  /** A `postgres://` URL: use that server. Default: the `DATABASE_URL` environment variable. */
  databaseUrl?: string;
  /** Where the embedded PGlite database lives when no URL is set. Default `.switchyard/db`. */
  dataDir?: string;
  /** The agent this process acts for: the default of `turnRequests.work`. */
  agentId?: string;
  /** Limits on schedules (minimum interval, schedules per agent, prompt size). */
  schedules?: ScheduleLimits;
  /** Turn-request delivery: expiry, retries, polling. */
  turnRequests?: TurnRequestOptions;
  /** Work-turn delivery (workflow tasks and background jobs): expiry, retries, polling, cancel checks. */
  workTurns?: WorkTurnOptions;
  /** Workflow limits. */
  workflows?: {
    /** Tasks of one workflow queued or running at once. Default 4. */
    maxConcurrentTasks?: number;
    /** The largest task or job prompt, in UTF-8 bytes. Default 64 KiB. */
    maxPromptBytes?: number;
  };
  /** The largest JSON value stored (payloads, definitions, results), in bytes. Default 1 MiB. */
  maxValueBytes?: number;
  /** Brain limits: page size, per-agent quota, retention of history, the cost of one recall. */
  brain?: BrainOptions;
  /**
   * Each agent's hourly limits on starting work (schedules created, schedule fires, workflows and
   * background jobs started), by agent id; counted in the transaction that stores each start, so every
   * process on the database holds them together. Default: none.
   */
  startLimits?: AgentStartLimitsOf;
  /** How often pg-boss expires lost deliveries and archives old jobs, in seconds. Default 30. */
  maintenanceIntervalSeconds?: number;
  /** Largest PostgreSQL connection pool. Default 10. */
  maxConnections?: number;
  /**
   * Opens every connection of the PostgreSQL pool at start and keeps them open (a fixed-size pool):
   * what a long-running daemon wants, so a burst of turns does not wait for new connections and a
   * server that cannot give them fails at start-up. Default false (connections open on demand and
   * close after 10 s idle: what a one-shot command wants). Embedded PGlite has no pool.
   */
  fixedPool?: boolean;
  /**
   * Receives background errors (pg-boss maintenance and polling, failed scheduler ticks, a running
   * work turn's failed cancellation check). Default: ignored.
   */
  onError?: (error: unknown) => void;
  /** Where `DATABASE_URL` is read. Default `process.env`. */
  environment?: NodeJS.ProcessEnv;
}

/** An open control plane. `close()` it when done. */
export interface ControlPlane {
  /** `pglite` (embedded) or `postgres` (a server). */
  readonly kind: 'pglite' | 'postgres';
  /** The schedule service for `createScheduleTools({ scheduleService, agentId })`. */
  readonly schedules: ControlPlaneScheduleService;
  /** The scheduler: `tick()` once, or `start()` ticking until `close()`. */
  readonly scheduler: ScheduleTicker;
  /** Turn requests for the worker's daemon: `work(handler)`. */
  readonly turnRequests: TurnRequestQueue;
  /** Background jobs, workflows and task results (low-level records). */
  readonly work: WorkStore;
  /** The workflow service for `createWorkflowTools({ workflowService, agentId })`. */
  readonly workflows: ControlPlaneWorkflowService;
  /** The background job service for `createBackgroundJobTools({ backgroundJobService, agentId })`. */
  readonly backgroundJobs: ControlPlaneBackgroundJobService;
  /** Work turns (task and job sub-agent turns) for the worker: `work(handler)`, `submitResult`. */
  readonly workTurns: WorkTurnQueue;
  /**
   * Records of the turns a worker daemon runs (started, ended, interrupted), whatever their source;
   * `markInterrupted` hands an interrupted turn's unit back to its queue.
   */
  readonly turns: TurnStore;
  /**
   * Each turn's journal (core's `TurnJournal`): its model responses and tool calls, written before the
   * turn moves on, read back when a turn whose worker stopped is resumed (`open`, `read`).
   */
  readonly journals: TurnJournalStore;
  /**
   * Each agent's Brain: knowledge pages with their versions and full-text recall. The `BrainService`
   * for `createBrainTools({ brain, agentId, mode })` of `@switchyard/tools-brain`.
   */
  readonly brain: ControlPlaneBrainService;
  /**
   * Approvals of tool calls held for an operator's answer, and the turns waiting for them: `request`,
   * `answer`, `list`, and what a worker needs to continue such a turn after the one running it stopped
   * (`claimResumable`, `consume`, `release`).
   */
  readonly approvals: ApprovalStore;
  /**
   * The HTTP API's `Idempotency-Key`s: each key's claim, request fingerprint and first answer,
   * shared by every process on the database (`claim`, `answer`, `release`, `sweepExpired`).
   */
  readonly idempotency: IdempotencyStore;
  /**
   * Each agent's spending and concurrency, shared by every process on the database: tokens by minute
   * (`recordTokens`, `tokensLastDay`), starts against `startLimits`, turns admitted at once
   * (`admitTurn`), and what an agent spent (`usage`).
   */
  readonly budgets: AgentBudgetStore;
  /**
   * Every queue (turn requests, work turns) with its waiting jobs and the age of the oldest, in one
   * scan: what a worker reports as queue metrics.
   */
  queueDepths(): Promise<QueueDepth[]>;
  /**
   * On embedded PGlite, resolves once this process's hold on the data directory is lost before
   * `close()`: the child process keeping its OS lock was killed, or the directory was removed or
   * replaced. Another process may open the database from then on, so a holder should take no new
   * work and say so (`switchyard serve` answers 503 and fails `/healthz`). Never resolves on
   * PostgreSQL, nor while the lock is held. Never rejects.
   */
  readonly lockLost: Promise<DataDirLockLoss>;
  /** Stops the scheduler and the consumers (running handlers finish), then closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the control plane: an embedded PGlite database in `dataDir`, or the PostgreSQL server of
 * `databaseUrl` / `DATABASE_URL`. Both run the same migrations and queries, and pg-boss 10 queues.
 *
 * Contract: throws `ControlPlaneConfigError` naming the option (`field`, e.g.
 * `turnRequests.retryLimit`) for a non-postgres URL or a limit out of range, and
 * `ControlPlaneInputError` for a bad `agentId`; rejects when the server is unreachable or a migration fails.
 * On embedded PGlite, throws `ControlPlaneInputError` on `dataDir` naming the process that holds the
 * directory, and `ControlPlaneConfigError` on `dataDir` where neither `flock(1)` nor perl is
 * installed to hold it with an OS lock; `lockLost` resolves if the hold is lost while open.
 *
 * @example
 * const controlPlane = await openControlPlane({ dataDir: '/var/lib/switchyard/db', agentId: 'ada' });
 * const tools = createScheduleTools({ scheduleService: controlPlane.schedules, agentId: 'ada' });
 * controlPlane.scheduler.start();
 * await controlPlane.turnRequests.work(async (request) => runTurn(request.prompt));
 * // ...
 * await controlPlane.close();
 */
export async function openControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const target = resolveDatabaseTarget(options, options.environment);
  const settings = resolveControlPlaneSettings(options);
  const { agentId, maxValueBytes, onError } = settings;
  let reportLockLost: (loss: DataDirLockLoss) => void = () => {};
  const lockLost = new Promise<DataDirLockLoss>((resolve) => {
    reportLockLost = resolve;
  });
  const database: Database =
    target.kind === 'postgres'
      ? await openPostgresDatabase(target.url, {
          maxConnections: settings.maxConnections,
          fixed: options.fixedPool === true,
        })
      : await openPgliteDatabase(target.dataDir, { onLockLost: (loss) => reportLockLost(loss) });
  const boss = await startQueues(database, settings);
  const turnRequests = new TurnRequestQueue(boss, database, settings.turnRequests, agentId);
  const budgets = new AgentBudgetStore(database, options.startLimits);
  const scheduler = new ScheduleTicker(database, turnRequests, onError, budgets);
  const schedules = new ControlPlaneScheduleService(database, settings.schedules, {
    onCreated: (owner) => turnRequests.ensureQueue(owner),
    budgets,
  });
  const workTurns = new WorkTurnQueue(boss, database, settings.workTurns, agentId, maxValueBytes, onError);
  const units = routeTurnUnits(turnRequests, workTurns);
  const brain = new ControlPlaneBrainService(database, settings.brain);
  brain.startPruning(onError);
  let closing: Promise<void> | undefined;
  const controlPlane: ControlPlane = {
    kind: database.kind,
    schedules,
    scheduler,
    turnRequests,
    work: new WorkStore(database, maxValueBytes, (request) => workTurns.submitResult(request)),
    workflows: new ControlPlaneWorkflowService(database, workTurns, { ...settings.workflows, budgets }),
    backgroundJobs: new ControlPlaneBackgroundJobService(database, workTurns, {
      ...settings.workflows,
      budgets,
    }),
    workTurns,
    turns: new TurnStore(database, maxValueBytes, units.handBack, units.settleDetached),
    // A response holds the model's whole answer: room for large ones (tens of MiB), still bounded.
    journals: new TurnJournalStore(database, Math.max(64 * 1024 * 1024, 4 * maxValueBytes)),
    brain,
    approvals: new ApprovalStore(database, units.detachUnit),
    idempotency: new IdempotencyStore(database, maxValueBytes),
    budgets,
    queueDepths: () => queueDepths(database),
    lockLost,
    close: () => {
      closing ??= (async () => {
        await scheduler.stop();
        await turnRequests.stop();
        await workTurns.stop();
        await brain.stopPruning();
        await boss.stop({ graceful: true, wait: true, timeout: 30_000 });
        await database.close();
      })();
      return closing;
    },
  };
  rememberControlPlaneDatabase(controlPlane, database);
  return controlPlane;
}

/**
 * Migrates the database and starts pg-boss on it. When either fails, pg-boss is stopped and the
 * database closed before the error is rethrown: a failed open leaves nothing running.
 */
async function startQueues(database: Database, settings: ControlPlaneSettings): Promise<PgBoss> {
  let boss: PgBoss | undefined;
  try {
    await runMigrations(database);
    boss = new PgBoss({
      db: bossDatabase(database, 'pgboss', settings.onError),
      schema: 'pgboss',
      migrate: true,
      supervise: true,
      schedule: false,
      maintenanceIntervalSeconds: settings.maintenanceIntervalSeconds,
    });
    boss.on('error', settings.onError);
    await boss.start();
    return boss;
  } catch (error) {
    await boss?.stop({ graceful: false, wait: true }).catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
