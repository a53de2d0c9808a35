import type { Schema } from '../api/client';
import { errorText } from '../ui/format';

type WorkflowRequest = Schema<'WorkflowRequest'>;

/** One task row as typed: text, parsed on submit. */
export interface TaskRow {
  /** Stable across edits and removals, for Preact's keys. */
  key: number;
  id: string;
  prompt: string;
  /** Task ids separated by commas or spaces. */
  dependsOn: string;
  /** The result's JSON Schema as JSON text. */
  resultSchema: string;
}

/** The result schema a new row starts with: one required `summary` string (closed, as the daemon wants). */
const SUMMARY_SCHEMA = JSON.stringify(
  {
    type: 'object',
    properties: { summary: { type: 'string' } },
    required: ['summary'],
    additionalProperties: false,
  },
  null,
  2,
);

let nextKey = 0;

/** A new row (with `id`), its result schema the summary one. */
export function emptyRow(id = ''): TaskRow {
  nextKey += 1;
  return { key: nextKey, id, prompt: '', dependsOn: '', resultSchema: SUMMARY_SCHEMA };
}

/** The keys of the form's inputs, as the daemon's field paths name them (`tasks.2.dependsOn`). */
export function inputKeys(rows: readonly TaskRow[]): Set<string> {
  const keys = new Set(['agent', 'name']);
  rows.forEach((_row, index) => {
    for (const field of ['id', 'prompt', 'dependsOn', 'resultSchema']) keys.add(`tasks.${index}.${field}`);
  });
  return keys;
}

/**
 * The rows as the request's tasks. The result schemas are JSON text: a row whose text does not
 * parse is named in `problems` (by its input's key), before anything is sent.
 */
export function tasksOfRows(rows: readonly TaskRow[]): {
  tasks: WorkflowRequest['tasks'];
  problems: Map<string, string[]>;
} {
  const problems = new Map<string, string[]>();
  const tasks: WorkflowRequest['tasks'] = rows.map((row, index) => {
    let resultSchema: Record<string, unknown> = {};
    try {
      resultSchema = JSON.parse(row.resultSchema) as Record<string, unknown>;
    } catch (error) {
      problems.set(`tasks.${index}.resultSchema`, [`not JSON: ${errorText(error)}`]);
    }
    const dependsOn = row.dependsOn.split(/[\s,]+/).filter((id) => id !== '');
    return {
      id: row.id.trim(),
      prompt: row.prompt,
      resultSchema,
      ...(dependsOn.length === 0 ? {} : { dependsOn }),
    };
  });
  return { tasks, problems };
}

/** The rows of a pasted spec, or throws saying what is wrong with it. */
export function rowsOfSpec(text: string): { name?: string; agent?: string; rows: TaskRow[] } {
  const spec = JSON.parse(text) as unknown;
  if (typeof spec !== 'object' || spec === null || !Array.isArray((spec as { tasks?: unknown }).tasks)) {
    throw new Error('expected an object with a "tasks" list');
  }
  const { name, agent, tasks } = spec as { name?: unknown; agent?: unknown; tasks: unknown[] };
  const rows = tasks.map((task) => {
    const fields = (typeof task === 'object' && task !== null ? task : {}) as Record<string, unknown>;
    const row = emptyRow(typeof fields.id === 'string' ? fields.id : '');
    row.prompt = typeof fields.prompt === 'string' ? fields.prompt : '';
    row.dependsOn = Array.isArray(fields.dependsOn) ? fields.dependsOn.map(String).join(', ') : '';
    if (fields.resultSchema !== undefined) row.resultSchema = JSON.stringify(fields.resultSchema, null, 2);
    return row;
  });
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof agent === 'string' ? { agent } : {}),
    rows,
  };
}
