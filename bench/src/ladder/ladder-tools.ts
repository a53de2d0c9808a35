import { z } from 'zod';

/**
 * The Zod schemas the malformed-arguments corpus refers to by tool name (`tool` in each case).
 * Plain `z.object`s, as tool categories write them; both policies validate against the same one.
 */
export const ladderSchemas = {
  read_file: z.object({ path: z.string(), limit: z.number().int().optional() }),
  write_file: z.object({ path: z.string(), content: z.string() }),
  search: z.object({
    query: z.string(),
    max_results: z.number().int().optional(),
    filters: z.array(z.object({ field: z.string(), value: z.string() })).optional(),
  }),
  run_command: z.object({ command: z.string(), timeout_ms: z.number().optional() }),
  send_message: z.object({ to: z.string(), text: z.string(), urgent: z.boolean().optional() }),
  set_config: z.object({ key: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]) }),
  list_tasks: z.object({ status: z.enum(['open', 'done']).optional(), limit: z.number().int().optional() }),
  create_label: z.object({ name: z.string(), color: z.string().optional() }),
  // A task result of any shape, as a workflow's `submit_result` takes it: nothing in the schema
  // stops a number that overflows to Infinity.
  submit_result: z.object({ result: z.record(z.string(), z.unknown()) }),
} satisfies Record<string, z.ZodObject>;

/** A tool name of the corpus. */
export type LadderToolName = keyof typeof ladderSchemas;
