import { measure, ms, report } from '@switchyard/bench-kit';
import Ajv from 'ajv';
import { z } from 'zod';
import { parseToolArguments } from '../src/arguments/parse-tool-arguments';
import { defineWorkerTool } from '../src/index';
import { MAX_TOOL_ARGUMENT_BYTES, resolveToolParameters, validateToolArguments } from '../src/internal';

const BATCH = 2000;

function tool<TSchema extends z.ZodType<Record<string, unknown>>>(name: string, schema: TSchema) {
  return defineWorkerTool({
    name,
    description: `The ${name} tool.`,
    schema,
    describeActivity: () => name,
    execute: () => ({ content: 'ok' }),
  });
}

const readNote = tool('read_note', z.object({ path: z.string(), maxLines: z.number().int().optional() }));
const writeFile = tool(
  'write_file',
  z.object({
    path: z.string(),
    content: z.string(),
    mode: z.enum(['overwrite', 'append']).default('overwrite'),
    createDirectories: z.boolean().optional(),
  }),
);
const batch = tool(
  'update_items',
  z.object({
    items: z.array(
      z.object({ id: z.string(), title: z.string(), done: z.boolean(), tags: z.array(z.string()) }),
    ),
    note: z.string().optional(),
  }),
);
const search = defineWorkerTool({
  name: 'search',
  description: 'An MCP search tool.',
  jsonSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      filters: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' } } } },
    },
    required: ['query'],
    additionalProperties: false,
  },
  describeActivity: () => 'Searching',
  execute: () => ({ content: 'ok' }),
});
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const searchValidate = ajv.compile(resolveToolParameters(search).original);

const items = Array.from({ length: 20 }, (_, index) => ({
  id: `item-${index}`,
  title: `Item number ${index}`,
  done: index % 2 === 0,
  tags: ['a', 'b'],
}));

interface CleanCase {
  label: string;
  tool: Parameters<typeof validateToolArguments>[0];
  /** What a strict-mode model sends (nulls for optional fields). */
  raw: string;
  /** The same arguments as bare JSON.parse + safeParse accepts them. */
  bare: string;
  baseline: (raw: string) => unknown;
}

const zodBaseline = (schema: z.ZodType) => (raw: string) => schema.safeParse(JSON.parse(raw)).success;

const cleanCases: CleanCase[] = [
  {
    label: 'read_note (2 fields)',
    tool: readNote,
    raw: '{"path":"notes/todo.md","maxLines":null}',
    bare: '{"path":"notes/todo.md"}',
    baseline: zodBaseline(readNote.schema),
  },
  {
    label: 'write_file (2 KB content)',
    tool: writeFile,
    raw: JSON.stringify({
      path: 'a.md',
      content: 'Lorem ipsum. '.repeat(160),
      mode: null,
      createDirectories: null,
    }),
    bare: JSON.stringify({ path: 'a.md', content: 'Lorem ipsum. '.repeat(160) }),
    baseline: zodBaseline(writeFile.schema),
  },
  {
    label: 'update_items (20 nested objects)',
    tool: batch,
    raw: JSON.stringify({ items, note: null }),
    bare: JSON.stringify({ items }),
    baseline: zodBaseline(batch.schema),
  },
  {
    label: 'write_file (200 KB content)',
    tool: writeFile,
    raw: JSON.stringify({
      path: 'a.md',
      content: 'Lorem ipsum. '.repeat(16_000),
      mode: null,
      createDirectories: null,
    }),
    bare: JSON.stringify({ path: 'a.md', content: 'Lorem ipsum. '.repeat(16_000) }),
    baseline: zodBaseline(writeFile.schema),
  },
  {
    label: 'search (external JSON Schema, Ajv)',
    tool: search,
    raw: '{"query":"switchyard","limit":10,"filters":[{"field":"title"}]}',
    bare: '{"query":"switchyard","limit":10,"filters":[{"field":"title"}]}',
    baseline: (raw) => searchValidate(JSON.parse(raw)),
  },
];

async function callsPerSecond(run: () => unknown, batchSize: number): Promise<number> {
  const sample = await measure(
    () => {
      for (let index = 0; index < batchSize; index += 1) run();
    },
    { runs: 15, warmup: 3 },
  );
  return batchSize / (sample.median / 1000);
}

/**
 * Calls per second of each runner, measured in alternating rounds so that load from other
 * processes on a shared machine falls on all of them alike.
 */
function interleaved(runners: (() => unknown)[], batchSize: number, rounds = 21): number[] {
  const times: number[][] = runners.map(() => []);
  for (let round = 0; round < rounds + 3; round += 1) {
    runners.forEach((run, which) => {
      const start = performance.now();
      for (let index = 0; index < batchSize; index += 1) run();
      if (round >= 3) times[which]?.push(performance.now() - start);
    });
  }
  return times.map((list) => {
    list.sort((a, b) => a - b);
    return batchSize / ((list[Math.floor(list.length / 2)] ?? Number.NaN) / 1000);
  });
}

function rate(value: number): string {
  return value >= 1e6 ? `${(value / 1e6).toFixed(2)} M/s` : `${(value / 1e3).toFixed(1)} k/s`;
}

for (const entry of cleanCases) {
  const check = validateToolArguments(entry.tool, entry.raw);
  if (!check.ok || check.repairs.length > 0 || !entry.baseline(entry.bare)) {
    throw new Error(`bench input for ${entry.label} is not clean`);
  }
}

report('validateToolArguments, clean input (calls/s)', 'calls/s', 'vs bare JSON.parse + safeParse');
for (const entry of cleanCases) {
  const size = Math.max(2, Math.min(BATCH, Math.floor(1_000_000 / entry.raw.length)));
  const [bare = 0, same = 0, strict = 0] = interleaved(
    [
      () => entry.baseline(entry.bare),
      () => validateToolArguments(entry.tool, entry.bare),
      () => validateToolArguments(entry.tool, entry.raw),
    ],
    size,
  );
  report(`  ${entry.label}: bare baseline`, rate(bare));
  report('    validateToolArguments, same input', rate(same), `${(same / bare).toFixed(2)}x`);
  if (entry.raw !== entry.bare) {
    report('    validateToolArguments, strict-mode nulls', rate(strict), `${(strict / bare).toFixed(2)}x`);
  }
}

const brokenCases: { label: string; raw: string; options?: { finishReason: string } }[] = [
  { label: 'code fence', raw: '```json\n{"path":"notes/todo.md","maxLines":20}\n```' },
  { label: 'single quotes + trailing comma', raw: "{'path': 'notes/todo.md', 'maxLines': 20,}" },
  { label: 'double-encoded', raw: JSON.stringify('{"path":"notes/todo.md","maxLines":20}') },
  { label: 'truncated root (closed)', raw: '{"maxLines":20,"path":"notes/todo.md"' },
  { label: 'refused: cut at token limit', raw: '{"path":"notes/to', options: { finishReason: 'length' } },
  { label: 'refused: duplicate key', raw: '{"path":"a.md","path":"b.md"}' },
  { label: 'refused: schema (wrong type)', raw: '{"path":42}' },
];
report('validateToolArguments, broken input (read_note)', 'calls/s');
for (const entry of brokenCases) {
  const perSecond = await callsPerSecond(
    () => validateToolArguments(readNote, entry.raw, entry.options),
    BATCH,
  );
  const result = validateToolArguments(readNote, entry.raw, entry.options);
  report(`  ${entry.label}`, rate(perSecond), result.ok ? result.repairs.join(', ') : result.error.reason);
}

// Worst cases near the 1 MB cap, each against JSON.parse of the same data as clean JSON.
const near = MAX_TOOL_ARGUMENT_BYTES - 64;
const keyCount = Math.floor(near / 12);
const unquoted = `{${Array.from({ length: keyCount }, (_, index) => `k${index}:1`).join(',')}}`;
const worst: [label: string, raw: string, clean: string][] = [
  ['clean 1 MB string', `{"a":"${'x'.repeat(near)}"}`, `{"a":"${'x'.repeat(near)}"}`],
  ['1 MB of escaped quotes', `{"a":"${'\\"'.repeat(near / 2)}"}`, `{"a":"${'\\"'.repeat(near / 2)}"}`],
  ['1 MB of raw newlines in a string', `{"a":"${'\n'.repeat(near)}"}`, `{"a":"${'\\n'.repeat(near / 2)}"}`],
  ['1 MB open array of numbers (cut)', `{"a":[${'1,'.repeat(near / 2)}`, `{"a":[${'1,'.repeat(near / 2)}1]}`],
  // No clean equivalent: against a clean 1 MB string.
  ['1 MB of concatenated copies', '{"a":1}'.repeat(near / 7), `{"a":"${'x'.repeat(near)}"}`],
  ['1 MB of code fences after prose', `Here: ${'```\n'.repeat(near / 4)}`, `{"a":"${'x'.repeat(near)}"}`],
  ['1 MB of unquoted keys', unquoted, unquoted.replace(/k(\d+):/g, '"k$1":')],
];
report('parseToolArguments near the 1 MB cap (median)', 'time', 'vs JSON.parse of the clean equivalent');
for (const [label, raw, clean] of worst) {
  const [input = 0, baseline = 0] = interleaved(
    [() => parseToolArguments(raw), () => JSON.parse(clean)],
    1,
    5,
  ).map((perSecond) => 1000 / perSecond);
  const result = parseToolArguments(raw);
  report(
    `  ${label}`,
    ms(input),
    `${(input / baseline).toFixed(1)}x of ${ms(baseline)}  (${result.ok ? 'ok' : result.reason})`,
  );
}
