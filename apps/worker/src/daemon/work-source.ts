import {
  type ControlPlane,
  checkResultSchema,
  type TurnRecord,
  type WorkTurn,
} from '@switchyard/control-plane';
import type { AnyWorkerAgentTool } from '@switchyard/core';
import { instructionsFor, taskTurnTools } from '../task-turn-consumer';
import type { DaemonTurnRequest, DaemonTurnSnapshot } from './daemon-turns';

/**
 * Runs one turn to its end and returns its final snapshot, or returns as soon as a call of it is held
 * for approval with its unit detached from its queue (status `waiting-approval`): the turn's end then
 * settles the unit, in whichever process it ends.
 */
export type RunDaemonTurn = (request: DaemonTurnRequest) => Promise<DaemonTurnSnapshot>;

/**
 * A queue of work the daemon consumes: schedule fires today; background jobs and workflow tasks
 * are one more source each.
 *
 * Contract: `start` begins consuming and calls `runTurn` per unit of work; a unit whose turn did
 * not complete must be left to its queue to retry (throw from the queue's handler), never dropped.
 * `stop` stops taking new units and resolves once the running ones have been handed back or
 * completed.
 */
export interface WorkSource {
  /** For logs: `schedule-fires`, `background-jobs`, `workflow-tasks`. */
  readonly name: string;
  /** Starts consuming. */
  start(runTurn: RunDaemonTurn): Promise<void>;
  /** Stops consuming; resolves when running units are settled with their queue. */
  stop(): Promise<void>;
  /**
   * Rebuilds the own tools and instructions of a turn of this source that another process held a
   * call of and this one continues (from the `resumeContext` it started the turn with); undefined
   * when the turn is not this source's.
   */
  resumeRequest?(
    turn: TurnRecord,
    context: Record<string, unknown> | undefined,
  ): Pick<DaemonTurnRequest, 'tools' | 'instructions'> | undefined;
}

/** Turn statuses that count as done for a queued unit (anything else is retried). */
export const FINISHED_TURN_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  // Cut off like max-iterations: another attempt would most likely end the same way.
  'incomplete',
  'ended-by-tool',
  'max-iterations',
  // Its agent's budget was spent: another attempt would spend more against the same limit.
  'budget-exceeded',
]);

/** Thrown to a queue so it retries a unit whose turn did not finish. */
export class TurnNotFinishedError extends Error {
  constructor(snapshot: DaemonTurnSnapshot) {
    super(
      `turn ${snapshot.id} ended '${snapshot.status}'${snapshot.error === undefined ? '' : `: ${snapshot.error}`}`,
    );
    this.name = 'TurnNotFinishedError';
  }
}

/**
 * Schedule fires: each agent's turn requests from the control plane, one turn each, recorded with
 * the run's attempt (so a run whose process dies is handed back). A turn that was aborted or failed
 * makes the handler throw, so the control plane records the run as failed (with the reason) and
 * pg-boss delivers it again.
 *
 * @example
 * const source = scheduleFireSource(controlPlane, ['ada']);
 * await source.start((request) => turns.start(request).done);
 */
export function scheduleFireSource(controlPlane: ControlPlane, agentIds: readonly string[]): WorkSource {
  return {
    name: 'schedule-fires',
    async start(runTurn) {
      for (const agentId of agentIds) {
        await controlPlane.turnRequests.work(
          async (request, { attempt }) => {
            const snapshot = await runTurn({
              agentId: request.agentId,
              prompt: request.prompt,
              source: 'schedule',
              sourceId: request.runId,
              attempt,
            });
            // A held call detached the run from this delivery: the turn's end settles it.
            if (snapshot.status === 'waiting-approval') return;
            if (!FINISHED_TURN_STATUSES.has(snapshot.status)) throw new TurnNotFinishedError(snapshot);
          },
          { agentId },
        );
      }
    },
    stop: () => controlPlane.turnRequests.stop(),
  };
}

/** What `workTurnSource` takes besides the control plane and agents. */
export interface WorkTurnSourceOptions {
  /** Builds the web tools of one task turn; none when absent. */
  webTools?: () => AnyWorkerAgentTool[];
  /** Builds the read-only Brain tools of one task turn of an agent; none when absent. */
  brainTools?: (agentId: string) => AnyWorkerAgentTool[];
  /** Turns run at once per agent in this process. Default 2. */
  concurrency?: number;
}

/**
 * Workflow tasks and background jobs: each agent's work turns from the control plane, run as daemon
 * turns with the fixed task-turn tool list (`createTaskTurnTools`: the web tools and read-only Brain
 * tools when enabled, and `submit_result`, which stores
 * through the control plane), recorded with the delivery's attempt, which `submit_result` carries:
 * only the current attempt's result is stored. A cancelled workflow or job (or a unit handed to
 * another worker while this one was taken for dead) aborts its turn, which just ends; a turn the
 * daemon cancelled at shutdown, or that failed, throws so the control plane delivers it again.
 *
 * @example
 * const daemon = await startDaemon({ ..., sources: [workTurnSource(controlPlane, ['ada'])] });
 */
export function workTurnSource(
  controlPlane: ControlPlane,
  agentIds: readonly string[],
  options: WorkTurnSourceOptions = {},
): WorkSource {
  return {
    name: 'work-turns',
    async start(runTurn) {
      for (const agentId of agentIds) {
        await controlPlane.workTurns.work(
          async (turn, { signal, attempt }) => {
            const snapshot = await runTurn({
              agentId: turn.agentId,
              prompt: turn.prompt,
              source: turn.kind === 'workflow-task' ? 'task' : 'job',
              sourceId: turn.kind === 'workflow-task' ? `${turn.workflowId}/${turn.taskId}` : turn.jobId,
              attempt,
              signal,
              // The turn continues the trace of the call that started its workflow or job.
              ...(turn.traceParent === undefined ? {} : { traceParent: turn.traceParent }),
              instructions: instructionsFor(turn),
              tools: () =>
                taskTurnTools(turn, controlPlane, {
                  attempt,
                  ...(options.webTools === undefined ? {} : { webTools: options.webTools() }),
                  ...(options.brainTools === undefined
                    ? {}
                    : { brainTools: options.brainTools(turn.agentId) }),
                }),
              // What another process needs to rebuild this turn's tools if it continues it.
              resumeContext: { workTurn: turn },
            });
            // The workflow or job was cancelled, or its unit was handed to another worker: the turn just ends.
            if (signal.aborted) return;
            // A held call detached the unit from this delivery: the turn's end settles it.
            if (snapshot.status === 'waiting-approval') return;
            if (!FINISHED_TURN_STATUSES.has(snapshot.status)) throw new TurnNotFinishedError(snapshot);
            return { output: snapshot.output };
          },
          { agentId, concurrency: options.concurrency ?? 2 },
        );
      }
    },
    stop: () => controlPlane.workTurns.stop(),
    resumeRequest(record, context) {
      const stored = context?.workTurn as WorkTurn | undefined;
      if ((record.source !== 'task' && record.source !== 'job') || stored === undefined) return undefined;
      // The checkpoint is jsonb, which does not keep key order; strict mode compares the result
      // schema with its canonical form key by key: put it back in canonical order.
      const checked = stored.resultSchema === null ? undefined : checkResultSchema(stored.resultSchema);
      const turn: WorkTurn = checked?.ok === true ? { ...stored, resultSchema: checked.schema } : stored;
      return {
        instructions: instructionsFor(turn),
        tools: () =>
          taskTurnTools(turn, controlPlane, {
            ...(record.attempt === undefined ? {} : { attempt: record.attempt }),
            ...(options.webTools === undefined ? {} : { webTools: options.webTools() }),
          }),
      };
    },
  };
}
