import type { JSONSchemaObject } from '@switchyard/core';

/** Where a task-turn submission or a creation request comes from: a workflow task's or a job's turn. */
export type WorkOrigin =
  | {
      /** A workflow task's sub-agent turn. */
      kind: 'workflow-task';
      /** The workflow's id. */
      workflowId: string;
      /** The task's id. */
      taskId: string;
    }
  | {
      /** A background job's sub-agent turn. */
      kind: 'background-job';
      /** The job's id. */
      jobId: string;
    };

/** One sub-agent turn to run: a workflow task or a background agent job. */
export type WorkTurn =
  | {
      /** A workflow task. */
      kind: 'workflow-task';
      /** The agent that owns the workflow. */
      agentId: string;
      /** The workflow's id. */
      workflowId: string;
      /** The workflow's name. */
      workflowName: string;
      /** The task's id. */
      taskId: string;
      /** The prompt, with `{{tasks.<id>.result}}` replaced by the dependencies' results (JSON). */
      prompt: string;
      /** The stored result schema: `submit_result`'s `jsonSchema`. */
      resultSchema: JSONSchemaObject;
      /** The W3C `traceparent` stored with the work, when it was started inside a trace. */
      traceParent?: string;
    }
  | {
      /** A background agent job. */
      kind: 'background-job';
      /** The agent that owns the job. */
      agentId: string;
      /** The job's id. */
      jobId: string;
      /** The job's prompt. */
      prompt: string;
      /** The result schema, or null: the turn's final text is then the result. */
      resultSchema: JSONSchemaObject | null;
      /** The W3C `traceparent` stored with the work, when it was started inside a trace. */
      traceParent?: string;
    };

/** What a work-turn handler receives besides the turn. */
export interface WorkTurnContext {
  /**
   * 1 on the first delivery; more after a failed delivery or a dead worker. Pass it to
   * `submitResult` (and the turn record) so only this attempt's result is taken.
   */
  attempt: number;
  /**
   * Fires when the workflow or job is cancelled while the turn runs, or when its unit was handed to
   * another worker (this one was taken for dead).
   */
  signal: AbortSignal;
}

/** What a work-turn handler reports when its turn ends. */
export interface WorkTurnOutcome {
  /** The turn's final text: the result of a background job without a result schema. */
  output?: string;
}

/** Runs one work turn. Throwing (or the process dying) makes it retry, up to the retry limit. */
export type WorkTurnHandler = (turn: WorkTurn, context: WorkTurnContext) => Promise<WorkTurnHandlerResult>;

/** A handler's return value: an outcome, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler with nothing to report just returns
export type WorkTurnHandlerResult = WorkTurnOutcome | void;

/** What `submitResult` takes. */
export interface SubmitResultRequest {
  /** The task or job the result belongs to. */
  target: WorkOrigin;
  /** The submitted value. */
  result: unknown;
  /**
   * The attempt of the turn submitting (`WorkTurnContext.attempt`): the result is stored only while
   * that attempt is the task's or job's current one, so a worker that was taken for dead (its unit
   * handed to another) cannot store a second result. Without it, any running attempt's result is taken.
   */
  attempt?: number;
}

/** What `submitResult` answers. */
export type SubmitResultOutcome =
  | {
      /** Validated and stored. */
      status: 'stored';
    }
  | {
      /** A result was stored earlier; nothing new is stored. */
      status: 'already-stored';
    }
  | {
      /** The value does not match the stored result schema: nothing is stored. */
      status: 'rejected';
      /** One line per problem: `/path: what was expected`. */
      problems: string[];
    }
  | {
      /**
       * The task or job takes no result from this submission: cancelled, failed, not running (pending
       * on its dependencies, queued), or handed to another attempt. Nothing is stored.
       */
      status: 'closed';
      /** Why. */
      reason: string;
    };
