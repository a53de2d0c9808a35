import { toStrictJSONSchema, zodToJSONSchema } from '@switchyard/core/internal';
import { z } from 'zod';
import type { BenchTool } from '../runtimes/bench-runtime';

const VERBS = ['read', 'write', 'list', 'search', 'create', 'update', 'delete', 'move', 'copy', 'count'];
const NOUNS = ['note', 'file', 'event', 'invoice', 'contact', 'task', 'page', 'ticket', 'image', 'job'];

const schema = z.object({
  path: z.string().describe('Path inside the home folder'),
  limit: z.number().int().optional().describe('Most entries to return'),
  mode: z.enum(['fast', 'thorough']).optional(),
  filters: z.array(z.object({ field: z.string(), value: z.string() })).optional(),
});

/**
 * `count` realistic tools (four-field schemas, one-line descriptions), optionally waiting `waitMs`
 * before answering. Names are unique; the schema object is shared, as category creators do.
 */
export function benchTools(
  count: number,
  options: { waitMs?: number; parallel?: boolean } = {},
): BenchTool[] {
  const projection = toStrictJSONSchema(zodToJSONSchema(schema));
  if (!projection.ok) throw new Error(projection.reason);
  return Array.from({ length: count }, (_, index) => {
    const verb = VERBS[index % VERBS.length];
    const noun = NOUNS[Math.floor(index / VERBS.length) % NOUNS.length];
    const name = `${verb}_${noun}_${index}`;
    return {
      name,
      description: `${verb} a ${noun} in the agent's home folder and report what happened, briefly.`,
      schema,
      parameters: projection.schema,
      parallel: options.parallel ?? true,
      async execute(params) {
        if (options.waitMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.waitMs));
        return `${name} done for ${String(params.path)}`;
      },
    };
  });
}
