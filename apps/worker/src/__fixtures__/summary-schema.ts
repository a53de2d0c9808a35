/** The result schema the tests give their workflow tasks: one required `summary` string. */
export const summarySchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

/** A workflow task of a test: its result is a `summary` (`summarySchema`). */
export interface SummaryTask {
  id: string;
  prompt: string;
  resultSchema: typeof summarySchema;
  dependsOn?: string[];
}

/** The task `id` with `prompt`, started once every task `dependsOn` names has its result. */
export function summaryTask(id: string, prompt: string, dependsOn?: string[]): SummaryTask {
  return { id, prompt, resultSchema: summarySchema, ...(dependsOn === undefined ? {} : { dependsOn }) };
}
