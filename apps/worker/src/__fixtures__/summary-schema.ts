/** The result schema the tests give their workflow tasks: one required `summary` string. */
export const summarySchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};
