import type { JSONSchemaObject } from '@switchyard/core';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredText } from '../values/check-stored-value';
import { checkResultSchema } from './check-result-schema';

/** One task of a workflow spec. */
export interface WorkflowTaskSpec {
  /** Unique within the workflow: letters, digits, `_` and `-`, up to 64 characters. */
  id: string;
  /** What the task's sub-agent turn is asked; may hold `{{tasks.<id>.result}}` of tasks it depends on. */
  prompt: string;
  /** The JSON Schema its result must match: one of the closed shapes (see `checkResultSchema`). */
  resultSchema: JSONSchemaObject;
  /** Tasks that must complete first. */
  dependsOn?: string[];
}

/** A declarative workflow: a name and its tasks. */
export interface WorkflowSpec {
  /** A short name. */
  name: string;
  /** The tasks, at least one. */
  tasks: WorkflowTaskSpec[];
}

/** A checked task: the result schema in canonical form, dependencies as a list. */
export interface CheckedWorkflowTask {
  /** The task id. */
  id: string;
  /** The prompt, references unresolved. */
  prompt: string;
  /** The canonical result schema. */
  resultSchema: JSONSchemaObject;
  /** The tasks it depends on. */
  dependsOn: string[];
}

/** Most tasks in one workflow. */
export const MAX_WORKFLOW_TASKS = 50;
const TASK_ID = /^[a-zA-Z0-9_-]{1,64}$/;
/** A reference to a dependency's result inside a task prompt. */
export const TASK_REFERENCE = /\{\{\s*tasks\.([^.}\s]+)\.result\s*\}\}/g;

function describe(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 80) ?? String(value);
}

/**
 * Checks a workflow spec before anything is stored: unique task ids, known dependencies, no cycles,
 * prompt references only to tasks the task depends on, and result schemas of the closed shapes.
 *
 * Contract: throws `ControlPlaneInputError` whose `field` names the spec field
 * (`tasks[2].resultSchema`) and whose message names the task and the schema path.
 */
export function checkWorkflowSpec(
  spec: unknown,
  maxPromptBytes: number,
): {
  name: string;
  tasks: CheckedWorkflowTask[];
} {
  if (typeof spec !== 'object' || spec === null)
    throw new ControlPlaneInputError('spec', 'must be an object');
  const { name, tasks } = spec as Partial<WorkflowSpec>;
  const checkedName = checkStoredText('name', name, { maxBytes: 200 });
  if (!Array.isArray(tasks) || tasks.length === 0) {
    throw new ControlPlaneInputError('tasks', 'must be a non-empty list of tasks');
  }
  if (tasks.length > MAX_WORKFLOW_TASKS) {
    throw new ControlPlaneInputError(
      'tasks',
      `has ${tasks.length} tasks, over the limit of ${MAX_WORKFLOW_TASKS}`,
    );
  }
  const ids = new Map<string, number>();
  const checked: CheckedWorkflowTask[] = [];
  for (const [index, task] of tasks.entries()) {
    const field = `tasks[${index}]`;
    if (typeof task !== 'object' || task === null)
      throw new ControlPlaneInputError(field, 'must be an object');
    const { id } = task as Partial<WorkflowTaskSpec>;
    if (typeof id !== 'string' || !TASK_ID.test(id)) {
      throw new ControlPlaneInputError(
        `${field}.id`,
        `must match ${TASK_ID} (letters, digits, '_' and '-'), got ${describe(id)}`,
      );
    }
    const earlier = ids.get(id);
    if (earlier !== undefined) {
      throw new ControlPlaneInputError(`${field}.id`, `task "${id}" repeats the id of tasks[${earlier}]`);
    }
    ids.set(id, index);
    const prompt = checkStoredText(`${field}.prompt`, task.prompt, { maxBytes: maxPromptBytes });
    const dependsOn = task.dependsOn ?? [];
    if (!Array.isArray(dependsOn) || dependsOn.some((item) => typeof item !== 'string')) {
      throw new ControlPlaneInputError(`${field}.dependsOn`, `task "${id}": must be a list of task ids`);
    }
    const schema = checkResultSchema(task.resultSchema);
    if (!schema.ok) {
      throw new ControlPlaneInputError(
        `${field}.resultSchema`,
        `task "${id}": resultSchema at ${schema.path}: ${schema.message}`,
      );
    }
    checked.push({ id, prompt, resultSchema: schema.schema, dependsOn: [...new Set(dependsOn)] });
  }
  for (const [index, task] of checked.entries()) {
    for (const dependency of task.dependsOn) {
      if (!ids.has(dependency)) {
        throw new ControlPlaneInputError(
          `tasks[${index}].dependsOn`,
          `task "${task.id}" depends on unknown task "${dependency}"`,
        );
      }
      if (dependency === task.id) {
        throw new ControlPlaneInputError(`tasks[${index}].dependsOn`, `task "${task.id}" depends on itself`);
      }
    }
    for (const match of task.prompt.matchAll(TASK_REFERENCE)) {
      const referenced = match[1] ?? '';
      if (!ids.has(referenced)) {
        throw new ControlPlaneInputError(
          `tasks[${index}].prompt`,
          `task "${task.id}" references ${match[0]}, but there is no task "${referenced}"`,
        );
      }
      if (!task.dependsOn.includes(referenced)) {
        throw new ControlPlaneInputError(
          `tasks[${index}].prompt`,
          `task "${task.id}" references ${match[0]} but does not depend on "${referenced}": add it to dependsOn`,
        );
      }
    }
  }
  // Depth-first search for a cycle, reporting its path.
  const byId = new Map(checked.map((task) => [task.id, task]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): void => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const cycle = [...stack.slice(stack.indexOf(id)), id];
      throw new ControlPlaneInputError(
        `tasks[${ids.get(id)}].dependsOn`,
        `task "${id}" is part of a dependency cycle: ${cycle.join(' -> ')}`,
      );
    }
    state.set(id, 'visiting');
    stack.push(id);
    for (const dependency of byId.get(id)?.dependsOn ?? []) visit(dependency);
    stack.pop();
    state.set(id, 'done');
  };
  for (const task of checked) visit(task.id);
  return { name: checkedName, tasks: checked };
}
