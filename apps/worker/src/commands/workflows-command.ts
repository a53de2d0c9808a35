import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import type { CommandIO } from '../run-text-turn';
import { readControlPlane } from '../worker-services';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface WorkflowRow {
  id: string;
  agent_id: string;
  name: string;
  status: string;
  created_at: string | Date;
}

interface TaskRow {
  task_id: string;
  status: string;
  attempts: number;
  error: string | null;
  result: unknown;
  stored_at: string | Date | null;
}

/**
 * `switchyard workflows show <id>`: a workflow, its tasks' status, attempts (when more than one: its
 * turn was retried or handed back after a worker died), why a task failed, and the stored results,
 * read from the control plane (read queries only).
 *
 * Contract: exit code 1 with a message for an id that is not a UUID or names no workflow.
 */
export async function workflowsShowCommand(config: WorkerConfig, id: string, io: CommandIO): Promise<number> {
  if (!UUID.test(id)) {
    io.stderr.write(`switchyard: workflows show: ${JSON.stringify(id)} is not a workflow id (a UUID)\n`);
    return 1;
  }
  const noWorkflow = () => {
    io.stderr.write(`switchyard: workflows show: no workflow ${id}\n`);
    return 1;
  };
  return readControlPlane(
    config,
    async (controlPlane) => {
      const { rows } = await controlPlane.query<WorkflowRow>(
        'SELECT id, agent_id, name, status, created_at FROM switchyard.workflows WHERE id = $1',
        [id],
      );
      const workflow = rows[0];
      if (workflow === undefined) return noWorkflow();
      const { rows: tasks } = await controlPlane.query<TaskRow>(
        `SELECT t.task_id, t.status, t.attempts, t.error, r.result, r.stored_at
           FROM switchyard.workflow_tasks t
           LEFT JOIN switchyard.task_results r ON r.workflow_id = t.workflow_id AND r.task_id = t.task_id
          WHERE t.workflow_id = $1 ORDER BY t.task_id`,
        [id],
      );
      const created = new Date(workflow.created_at).toISOString();
      io.stdout.write(
        `Workflow ${workflow.name} (${workflow.id}) of agent ${workflow.agent_id}: ${workflow.status}, created ${created}\n`,
      );
      const done = tasks.filter((task) => task.status === 'completed').length;
      io.stdout.write(`${tasks.length} task${tasks.length === 1 ? '' : 's'}, ${done} completed:\n`);
      for (const task of tasks) {
        const attempts = task.attempts > 1 ? ` (${task.attempts} attempts)` : '';
        io.stdout.write(`- ${task.task_id}: ${task.status}${attempts}\n`);
        if (task.error !== null) io.stdout.write(`  error: ${task.error}\n`);
        if (task.result !== null && task.result !== undefined) {
          io.stdout.write(`  result: ${JSON.stringify(task.result)}\n`);
        }
      }
      return 0;
    },
    noWorkflow,
  );
}

/**
 * `switchyard workflows list [--agent NAME]`: the agent's recent workflows, newest first, with their
 * status; `workflows show <id>` gives one's tasks. Read-only.
 */
export async function workflowsListCommand(
  config: WorkerConfig,
  options: { agent?: string },
  io: CommandIO,
): Promise<number> {
  const agent = resolveAgent(config, options.agent);
  const workflows = await readControlPlane(
    config,
    (controlPlane) => controlPlane.workflows.listWorkflows({ agentId: agent.id }),
    () => [],
  );
  if (workflows.length === 0) {
    io.stdout.write(`Agent ${agent.id} has no workflows.\n`);
    return 0;
  }
  io.stdout.write(
    `${workflows.length} workflow${workflows.length === 1 ? '' : 's'} of agent ${agent.id}, newest first:\n`,
  );
  for (const workflow of workflows) {
    const ended = workflow.finishedAt === null ? '' : `, ended ${workflow.finishedAt}`;
    const counts = Object.entries(workflow.taskCounts)
      .map(([status, count]) => `${count} ${status}`)
      .join(', ');
    io.stdout.write(
      `- ${workflow.name} (${workflow.id}) ${workflow.status}, created ${workflow.createdAt}${ended}; tasks: ${counts || 'none'}\n`,
    );
  }
  return 0;
}
