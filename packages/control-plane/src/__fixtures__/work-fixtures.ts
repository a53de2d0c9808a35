// Small values the workflow, task and turn suites share.
import type { ControlPlane, WorkflowRecord, WorkflowTaskSpec } from '../index';

/** The result schema most test tasks declare: `{ summary: string }`, nothing else. */
export const summarySchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

let sequence = 0;

/** A turn id no other test in the run uses: `turn_<label>_<now>_<sequence>`. */
export function uniqueTurnId(label: string): string {
  sequence += 1;
  return `turn_${label}_${Date.now()}_${sequence}`;
}

/** A workflow task whose result is a `{ summary }` (`summarySchema`); its prompt is `p` unless given. */
export function summaryTask(
  id: string,
  options: { prompt?: string; dependsOn?: string[] } = {},
): WorkflowTaskSpec {
  const { prompt = 'p', dependsOn } = options;
  return { id, prompt, resultSchema: summarySchema, ...(dependsOn === undefined ? {} : { dependsOn }) };
}

/** Starts workflow `name` of agent `agentId` with `tasks` and nothing else (no key, trace or origin). */
export function startWorkflow(
  controlPlane: ControlPlane,
  agentId: string,
  name: string,
  tasks: WorkflowTaskSpec[],
): Promise<WorkflowRecord> {
  return controlPlane.workflows.startWorkflow({ agentId, spec: { name, tasks } });
}
