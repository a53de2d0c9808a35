/** One unit of work a work-turn queue job carries: a workflow's task or a background job. */
export type QueuedWork =
  | { kind: 'workflow-task'; workflowId: string; taskId: string }
  | { kind: 'background-job'; jobId: string };
