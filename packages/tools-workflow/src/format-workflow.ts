import type { BackgroundJobSummary, WorkflowDetails, WorkflowSummary } from './services';

const MAX_RESULT_CHARACTERS = 4000;

/** A value as JSON, cut to a readable size. */
export function formatValue(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > MAX_RESULT_CHARACTERS ? `${text.slice(0, MAX_RESULT_CHARACTERS)}… (cut)` : text;
}

/** One workflow line: name, id, status. */
export function formatWorkflowSummary(workflow: WorkflowSummary): string {
  return `${workflow.name} (id ${workflow.id}): ${workflow.status}`;
}

/** A workflow and each task's status, result or error, as the model reads it. */
export function formatWorkflow(workflow: WorkflowDetails): string {
  const lines = [`Workflow ${formatWorkflowSummary(workflow)}`];
  for (const task of workflow.tasks) {
    const waits =
      task.status === 'pending' && task.dependsOn.length > 0
        ? ` (waits for ${task.dependsOn.join(', ')})`
        : '';
    const detail =
      task.result !== null && task.result !== undefined
        ? `: ${formatValue(task.result)}`
        : task.error !== null
          ? `: ${task.error}`
          : '';
    lines.push(`- ${task.id}: ${task.status}${waits}${detail}`);
  }
  return lines.join('\n');
}

/** A background job's status and result, as the model reads it. */
export function formatJob(job: BackgroundJobSummary): string {
  const lines = [`Background job ${job.id}: ${job.status}`];
  if (job.result !== null && job.result !== undefined) lines.push(`result: ${formatValue(job.result)}`);
  if (job.error !== null && job.status !== 'cancelled') lines.push(`error: ${job.error}`);
  return lines.join('\n');
}
