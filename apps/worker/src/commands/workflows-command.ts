import type { WorkflowRecord } from '@switchyard/control-plane';
import { readDaemon, recordOfView } from '../running-daemon';
import { agentListCommand, recordShowCommand } from './read-only-view';

type WorkflowSummary = Omit<WorkflowRecord, 'tasks'> & { taskCounts: Record<string, number> };

/** The API's workflow as the control plane's: `agentId`, and `finishedAt` null while it runs. */
function workflowOf<T>(view: Record<string, unknown>): T {
  return recordOfView<T>({ ...view, finishedAt: view.finishedAt ?? null });
}

/**
 * `switchyard workflows show <id>`: a workflow, its tasks' status, attempts (when more than one: its
 * turn was retried or handed back after a worker died), why a task failed, and the stored results,
 * read from the control plane (read queries only).
 *
 * Contract: exit code 1 with a message for an id that is not a UUID or names no workflow.
 */
export const workflowsShowCommand = recordShowCommand({
  command: 'workflows show',
  noun: 'workflow',
  read: (controlPlane, id) => controlPlane.workflows.inspectWorkflow({ workflowId: id }),
  readDaemon: async (daemon, id) => {
    const body = await readDaemon(daemon, `/v1/workflows/${encodeURIComponent(id)}`, 'the workflow');
    return body === undefined ? undefined : workflowOf<WorkflowRecord & { agentId: string }>(body);
  },
  print: (workflow, io) => {
    // By task id, as this view has always listed them.
    const tasks = [...workflow.tasks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    io.stdout.write(
      `Workflow ${workflow.name} (${workflow.id}) of agent ${workflow.agentId}: ${workflow.status}, created ${workflow.createdAt}\n`,
    );
    const done = tasks.filter((task) => task.status === 'completed').length;
    io.stdout.write(`${tasks.length} task${tasks.length === 1 ? '' : 's'}, ${done} completed:\n`);
    for (const task of tasks) {
      const attempts = task.attempts > 1 ? ` (${task.attempts} attempts)` : '';
      io.stdout.write(`- ${task.id}: ${task.status}${attempts}\n`);
      if (task.error !== null) io.stdout.write(`  error: ${task.error}\n`);
      if (task.result !== null && task.result !== undefined) {
        io.stdout.write(`  result: ${JSON.stringify(task.result)}\n`);
      }
    }
  },
});

/**
 * `switchyard workflows list [--agent NAME]`: the agent's recent workflows, newest first, with their
 * status; `workflows show <id>` gives one's tasks. Read-only.
 */
export const workflowsListCommand = agentListCommand({
  read: (controlPlane, agentId) => controlPlane.workflows.listWorkflows({ agentId }),
  readDaemon: async (daemon, agentId) => {
    const query = new URLSearchParams({ agent: agentId });
    const body = await readDaemon(daemon, `/v1/workflows?${query}`, 'workflows');
    return ((body?.workflows ?? []) as Array<Record<string, unknown>>).map((item) =>
      workflowOf<WorkflowSummary>(item),
    );
  },
  none: (agentId) => `Agent ${agentId} has no workflows.`,
  heading: (workflows, agentId) =>
    `${workflows.length} workflow${workflows.length === 1 ? '' : 's'} of agent ${agentId}, newest first:`,
  describe: (workflow) => {
    const ended = workflow.finishedAt === null ? '' : `, ended ${workflow.finishedAt}`;
    const counts = Object.entries(workflow.taskCounts)
      .map(([status, count]) => `${count} ${status}`)
      .join(', ');
    return `- ${workflow.name} (${workflow.id}) ${workflow.status}, created ${workflow.createdAt}${ended}; tasks: ${counts || 'none'}`;
  },
});
