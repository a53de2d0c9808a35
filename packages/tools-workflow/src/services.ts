import type { JSONSchemaObject } from '@switchyard/core';

/** One task of a workflow spec, as the `workflow` tool takes it. */
export interface WorkflowTaskSpec {
  /** Unique within the workflow: letters, digits, `_` and `-`. */
  id: string;
  /** What the task's sub-agent turn is asked; may hold `{{tasks.<id>.result}}` of tasks it depends on. */
  prompt: string;
  /** The JSON Schema the task's result must match (one of the closed shapes). */
  resultSchema: JSONSchemaObject;
  /** Tasks that must complete first. */
  dependsOn?: string[];
}

/** A declarative workflow spec. */
export interface WorkflowSpec {
  /** A short name. */
  name: string;
  /** The tasks. */
  tasks: WorkflowTaskSpec[];
}

/** A task or job turn: who is asking, when a task or job turn calls a service. */
export type WorkTarget =
  | {
      /** A workflow task. */
      kind: 'workflow-task';
      /** The workflow's id. */
      workflowId: string;
      /** The task's id. */
      taskId: string;
    }
  | {
      /** A background agent job. */
      kind: 'background-job';
      /** The job's id. */
      jobId: string;
    };

/** One task as a `WorkflowService` reports it. */
export interface WorkflowTaskSummary {
  /** The task id. */
  id: string;
  /** `pending`, `queued`, `running`, `completed`, `failed` or `cancelled`. */
  status: string;
  /** The tasks it depends on. */
  dependsOn: string[];
  /** The stored result, or null. */
  result: unknown;
  /** Why it failed or was cancelled, or null. */
  error: string | null;
}

/** A workflow as a `WorkflowService` reports it. */
export interface WorkflowSummary {
  /** The workflow id: the other workflow tools take it. */
  id: string;
  /** Its name. */
  name: string;
  /** `running`, `completed`, `failed` or `cancelled`. */
  status: string;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** When it ended (ISO 8601), or null. */
  finishedAt: string | null;
}

/** A workflow with its tasks. */
export interface WorkflowDetails extends WorkflowSummary {
  /** The tasks, in spec order. */
  tasks: WorkflowTaskSummary[];
}

/**
 * Durable workflows, scoped by agent. `@switchyard/control-plane` implements it
 * (`controlPlane.workflows`); the tools never see the database.
 *
 * Contract: every method acts only on `agentId`'s workflows. `startWorkflow` checks the whole spec
 * before storing anything and throws with a message naming the task and schema path; it refuses a
 * request with an `origin` (a task or job turn). `showWorkflow` and `cancelWorkflow` return null when
 * the agent has no workflow with that id.
 */
export interface WorkflowService {
  /** Checks and stores a workflow and starts its first tasks. */
  startWorkflow(request: {
    agentId: string;
    spec: WorkflowSpec;
    origin?: WorkTarget;
    /**
     * The start's key: a second start with the same key starts nothing and answers with the workflow
     * the first started (the tool passes its call's `idempotencyKey`, so a call run again after its
     * worker stopped starts one workflow).
     */
    idempotencyKey?: string;
  }): Promise<WorkflowDetails>;
  /** One workflow with each task's status, result and error. */
  showWorkflow(request: { agentId: string; workflowId: string }): Promise<WorkflowDetails | null>;
  /** The agent's recent workflows. */
  listWorkflows(request: { agentId: string }): Promise<WorkflowSummary[]>;
  /** Cancels a running workflow: pending tasks never start, running ones are aborted, results stay. */
  cancelWorkflow(request: { agentId: string; workflowId: string }): Promise<WorkflowDetails | null>;
}

/** A background agent job as a `BackgroundJobService` reports it. */
export interface BackgroundJobSummary {
  /** The job id. */
  id: string;
  /** `queued`, `running`, `completed`, `failed` or `cancelled`. */
  status: string;
  /** Its prompt. */
  prompt: string;
  /** The stored result, or null. */
  result: unknown;
  /** Why it failed, or null. */
  error: string | null;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** When it ended (ISO 8601), or null. */
  finishedAt: string | null;
}

/**
 * Background agent jobs, scoped by agent: each runs as a separate sub-agent turn.
 * `@switchyard/control-plane` implements it (`controlPlane.backgroundJobs`).
 *
 * Contract: every method acts only on `agentId`'s jobs; `checkBackgroundJob` and
 * `cancelBackgroundJob` return null when the agent has no job with that id. `startBackgroundJob`
 * throws with a message the model can act on (a result schema outside the closed shapes).
 */
export interface BackgroundJobService {
  /** Stores a job and queues its turn. */
  startBackgroundJob(request: {
    agentId: string;
    prompt: string;
    resultSchema?: JSONSchemaObject;
    origin?: WorkTarget;
    /** The start's key: a second start with the same key answers with the job the first started. */
    idempotencyKey?: string;
  }): Promise<BackgroundJobSummary>;
  /** A job's status and result. */
  checkBackgroundJob(request: { agentId: string; jobId: string }): Promise<BackgroundJobSummary | null>;
  /** Cancels a queued or running job. */
  cancelBackgroundJob(request: { agentId: string; jobId: string }): Promise<BackgroundJobSummary | null>;
}

/** What `submitResult` answers. */
export type SubmitResultOutcome =
  | {
      /** Validated and stored. */
      status: 'stored';
    }
  | {
      /** A result was stored earlier; nothing new was stored. */
      status: 'already-stored';
    }
  | {
      /** The value does not match the stored schema; nothing was stored. */
      status: 'rejected';
      /** One line per problem. */
      problems: string[];
    }
  | {
      /** The workflow, task or job was cancelled or failed. */
      status: 'closed';
      /** Why. */
      reason: string;
    };

/**
 * Where task turns submit their results. `@switchyard/control-plane` implements it
 * (`controlPlane.workTurns`), validating the value again against the stored schema before storing.
 *
 * Contract: stores at most one result per task or job; never throws for an invalid value (that is
 * `rejected`).
 */
export interface TaskResultService {
  /** Validates and stores a result once. */
  submitResult(request: { target: WorkTarget; result: unknown }): Promise<SubmitResultOutcome>;
}
