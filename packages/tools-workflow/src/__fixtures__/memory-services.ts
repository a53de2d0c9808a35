import type {
  BackgroundJobService,
  BackgroundJobSummary,
  SubmitResultOutcome,
  TaskResultService,
  WorkflowDetails,
  WorkflowService,
  WorkTarget,
} from '../index';

/** An in-memory WorkflowService: the tools' contract without a database. */
export function memoryWorkflowService(): WorkflowService & { calls: unknown[] } {
  const workflows = new Map<string, WorkflowDetails & { agentId: string }>();
  const calls: unknown[] = [];
  const strip = ({ agentId: _agentId, ...workflow }: WorkflowDetails & { agentId: string }) => workflow;
  return {
    calls,
    async startWorkflow(request) {
      calls.push(request);
      if (request.spec.tasks.some((task) => task.resultSchema.type !== 'object')) {
        throw new Error(
          `tasks[0].resultSchema: task "${request.spec.tasks[0]?.id}": resultSchema at /: the root must be an object schema`,
        );
      }
      const id = `w${workflows.size + 1}`;
      const workflow = {
        agentId: request.agentId,
        id,
        name: request.spec.name,
        status: 'running',
        createdAt: '2030-01-01T00:00:00.000Z',
        finishedAt: null,
        tasks: request.spec.tasks.map((task) => ({
          id: task.id,
          status: (task.dependsOn ?? []).length > 0 ? 'pending' : 'queued',
          dependsOn: task.dependsOn ?? [],
          result: null,
          error: null,
        })),
      };
      workflows.set(id, workflow);
      return strip(workflow);
    },
    async showWorkflow({ agentId, workflowId }) {
      const workflow = workflows.get(workflowId);
      return workflow?.agentId === agentId ? strip(workflow) : null;
    },
    async listWorkflows({ agentId }) {
      return [...workflows.values()].filter((item) => item.agentId === agentId).map(strip);
    },
    async cancelWorkflow({ agentId, workflowId }) {
      const workflow = workflows.get(workflowId);
      if (workflow?.agentId !== agentId) return null;
      workflow.status = 'cancelled';
      for (const task of workflow.tasks) {
        if (task.status !== 'completed') {
          task.status = 'cancelled';
          task.error = 'cancelled with the workflow';
        }
      }
      return strip(workflow);
    },
  };
}

/** An in-memory BackgroundJobService. */
export function memoryJobService(): BackgroundJobService {
  const jobs = new Map<string, BackgroundJobSummary & { agentId: string }>();
  const strip = ({ agentId: _agentId, ...job }: BackgroundJobSummary & { agentId: string }) => job;
  return {
    async startBackgroundJob({ agentId, prompt }) {
      const job = {
        agentId,
        id: `j${jobs.size + 1}`,
        status: 'queued',
        prompt,
        result: null,
        error: null,
        createdAt: '2030-01-01T00:00:00.000Z',
        finishedAt: null,
      };
      jobs.set(job.id, job);
      return strip(job);
    },
    async checkBackgroundJob({ agentId, jobId }) {
      const job = jobs.get(jobId);
      return job?.agentId === agentId ? strip(job) : null;
    },
    async cancelBackgroundJob({ agentId, jobId }) {
      const job = jobs.get(jobId);
      if (job?.agentId !== agentId) return null;
      if (job.status === 'queued' || job.status === 'running') job.status = 'cancelled';
      return strip(job);
    },
  };
}

/** A TaskResultService that checks `summary` is a string and stores once. */
export function memoryResultService(): TaskResultService & {
  stored: Array<{ target: WorkTarget; result: unknown }>;
} {
  const stored: Array<{ target: WorkTarget; result: unknown }> = [];
  return {
    stored,
    async submitResult({ target, result }): Promise<SubmitResultOutcome> {
      const value = result as { summary?: unknown };
      const problems: string[] = [];
      if (typeof value.summary !== 'string') problems.push('/summary: expected string');
      if (typeof value.summary === 'string' && value.summary.length < 3) problems.push('/summary: too short');
      if (problems.length > 0) return { status: 'rejected', problems };
      if (stored.length > 0) return { status: 'already-stored' };
      stored.push({ target, result });
      return { status: 'stored' };
    },
  };
}
