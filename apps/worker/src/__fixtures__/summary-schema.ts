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

/**
 * Four tasks in a diamond, each `[id, prompt]`: `first`; `left` and `right` once it has its result;
 * `last` once both of them have theirs.
 */
export function summaryDiamond(
  first: readonly [string, string],
  left: readonly [string, string],
  right: readonly [string, string],
  last: readonly [string, string],
): SummaryTask[] {
  return [
    summaryTask(...first),
    summaryTask(...left, [first[0]]),
    summaryTask(...right, [first[0]]),
    summaryTask(...last, [left[0], right[0]]),
  ];
}
