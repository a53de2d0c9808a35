import { measure, ms, report } from '@switchyard/bench-kit';
import { z } from 'zod';
import { collectToolSchemas, defineWorkerTool } from '../src/index';

const TOOL_COUNT = 200;

function makeTools() {
  return Array.from({ length: TOOL_COUNT }, (_, index) =>
    defineWorkerTool({
      name: `tool_${index}`,
      description: `Tool number ${index}: does one small thing with a path and a few options.`,
      // A new schema object per tool and per run, so the first turn pays for every conversion.
      schema: z.object({
        path: z.string().describe('Path inside the home'),
        limit: z.number().int().optional(),
        mode: z.enum(['fast', 'thorough']).optional(),
        filters: z.array(z.object({ field: z.string(), value: z.string() })).optional(),
      }),
      namespace: index % 4 === 0 ? `group_${index % 10}` : undefined,
      executionMode: 'parallel',
      describeActivity: ({ path }) => `Working on ${path}`,
      execute: () => ({ content: 'ok' }),
    }),
  );
}

report(`collectToolSchemas, ${TOOL_COUNT} tools`, 'median', 'ratio');
const first = await measure(() => collectToolSchemas(makeTools()), { runs: 30, warmup: 3 });
const tools = makeTools();
collectToolSchemas(tools);
const next = await measure(() => collectToolSchemas(tools), { runs: 2000 });
const bytes = collectToolSchemas(tools).bytes;
report('  first turn (define + convert + collect)', ms(first.median));
report(
  '  next turn (same tools, cached)',
  ms(next.median),
  `${(first.median / next.median).toFixed(0)}x faster than first`,
);
report('  request tool-schema bytes', `${bytes} B`);
