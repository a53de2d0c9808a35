import type { ControlPlane, WorkTurn } from '@switchyard/control-plane';
import {
  type AgentEvent,
  type AnyWorkerAgentTool,
  type ResponsesModel,
  runAgentLoop,
} from '@switchyard/core';
import { createTaskTurnTools } from '@switchyard/tools-workflow';

/** What `startTaskTurnConsumer` takes. */
export interface TaskTurnConsumerOptions {
  /** The open control plane whose work turns to consume. */
  controlPlane: Pick<ControlPlane, 'workTurns'>;
  /** The agent whose workflow tasks and background jobs run here. */
  agentId: string;
  /** The model task turns run with. */
  model: ResponsesModel;
  /** Builds the web tools of one task turn (`createWebTools(...)`); none when absent. */
  webTools?: () => AnyWorkerAgentTool[];
  /** Builds the read-only Brain tools of one task turn of an agent (`buildTaskTurnBrainTools`); none when absent. */
  brainTools?: (agentId: string) => AnyWorkerAgentTool[];
  /** Turns run at once in this process. Default 2. */
  concurrency?: number;
  /** Most model requests per task turn. Default 20. */
  maxIterations?: number;
  /** Per tool call timeout, in ms. Default 120 000. */
  toolTimeoutMs?: number;
  /** Receives every event of every task turn. */
  onEvent?: (turn: WorkTurn, event: AgentEvent) => void;
}

/**
 * The fixed tool list of one task or job turn (`createTaskTurnTools`): the web tools and read-only
 * Brain tools passed in, then `submit_result` carrying the turn's stored result schema. With `attempt` (the
 * delivery this turn runs), `submit_result` stores only while that attempt is still the task's
 * current one: a worker taken for dead, whose task went to another, cannot store a second result.
 */
export function taskTurnTools(
  turn: WorkTurn,
  controlPlane: Pick<ControlPlane, 'workTurns'>,
  extra: {
    webTools?: readonly AnyWorkerAgentTool[];
    brainTools?: readonly AnyWorkerAgentTool[];
    attempt?: number;
  } = {},
): AnyWorkerAgentTool[] {
  const { attempt } = extra;
  return createTaskTurnTools({
    task:
      turn.kind === 'workflow-task'
        ? {
            kind: 'workflow-task',
            workflowId: turn.workflowId,
            taskId: turn.taskId,
            resultSchema: turn.resultSchema,
          }
        : { kind: 'background-job', jobId: turn.jobId, resultSchema: turn.resultSchema },
    taskResultService:
      attempt === undefined
        ? controlPlane.workTurns
        : { submitResult: (request) => controlPlane.workTurns.submitResult({ ...request, attempt }) },
    ...(extra.webTools === undefined ? {} : { webTools: extra.webTools }),
    ...(extra.brainTools === undefined ? {} : { brainTools: extra.brainTools }),
  });
}

/** The instructions of a task or job turn: what it works on and how it finishes. */
export function instructionsFor(turn: WorkTurn): string {
  const what =
    turn.kind === 'workflow-task'
      ? `task "${turn.taskId}" of the workflow "${turn.workflowName}"`
      : 'a background job';
  const finish =
    turn.resultSchema === null
      ? 'Your final answer is the result.'
      : 'When you have the result, call submit_result with it; if it is rejected, fix the listed problems and submit again.';
  return `You are a sub-agent working on ${what}. Work only on it. ${finish}`;
}

/**
 * Consumes an agent's work turns (workflow tasks and background jobs): each runs as a sub-agent
 * turn of core's loop with `createTaskTurnTools`, whose `submit_result` stores through the control
 * plane. The worker's daemon starts one per agent.
 *
 * Contract: a turn that fails on a model request throws, so the control plane retries it; a turn
 * aborted by a cancellation just ends. Returns `stop()`, which stops consuming and waits for running
 * turns.
 *
 * @example
 * const consumer = await startTaskTurnConsumer({ controlPlane, agentId: 'ada', model });
 * // ...
 * await consumer.stop();
 */
export async function startTaskTurnConsumer(
  options: TaskTurnConsumerOptions,
): Promise<{ stop(): Promise<void> }> {
  const { controlPlane, model } = options;
  await controlPlane.workTurns.work(
    async (turn, { signal, attempt }) => {
      const tools = taskTurnTools(turn, controlPlane, {
        attempt,
        ...(options.webTools === undefined ? {} : { webTools: options.webTools() }),
        ...(options.brainTools === undefined ? {} : { brainTools: options.brainTools(turn.agentId) }),
      });
      const run = runAgentLoop({
        model,
        tools,
        instructions: instructionsFor(turn),
        input: turn.prompt,
        signal,
        maxIterations: options.maxIterations ?? 20,
        toolTimeoutMs: options.toolTimeoutMs ?? 120_000,
        telemetry: { agentName: turn.agentId },
      });
      if (options.onEvent !== undefined) {
        for await (const event of run) options.onEvent(turn, event);
      }
      const result = await run.result();
      if (result.status === 'failed') throw result.error ?? new Error('the task turn failed');
      return { output: result.output };
    },
    { agentId: options.agentId, concurrency: options.concurrency ?? 2 },
  );
  return { stop: () => controlPlane.workTurns.stop() };
}
