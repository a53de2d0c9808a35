import { z } from 'zod';

/**
 * One tool of the composed-turn benchmark before any runtime defines it: a name, a description and
 * its own Zod object schema. `subject` is the string field whose value the tool echoes, and
 * `sample` the arguments the scripted model sends (valid for the schema).
 */
export interface ToolSpec {
  /** Tool name (unique in the set). */
  name: string;
  /** What it does. */
  description: string;
  /** Its parameters: a Zod object schema of its own (never shared with another tool). */
  schema: z.ZodObject;
  /** The string field the tool reports back in its output. */
  subject: string;
  /** Arguments that pass `schema`, with `subject` set to `value`. */
  sample(value: string): Record<string, unknown>;
}

type Template = (variant: number) => Omit<ToolSpec, 'name' | 'description'> & { verb: string; noun: string };

// Ten realistic shapes (strings with limits, enums, optional fields, nested objects, arrays,
// numbers with bounds), each in five variants whose limits, enum members and descriptions differ:
// 50 distinct schemas, as a worker's categories and MCP servers would declare them.
const TEMPLATES: readonly Template[] = [
  (v) => ({
    verb: 'read',
    noun: 'file',
    subject: 'path',
    schema: z.object({
      path: z.string().min(1).max(4096).describe(`Path inside the home folder (area ${v})`),
      offset: z.number().int().min(0).optional().describe('First line to read, from 0'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(500 * (v + 1))
        .optional()
        .describe('Most lines to return'),
      encoding: z.enum(v % 2 === 0 ? ['utf8', 'base64'] : ['utf8', 'latin1', 'base64']).optional(),
    }),
    sample: (value) => ({ path: value, limit: 20 }),
  }),
  (v) => ({
    verb: 'search',
    noun: 'note',
    subject: 'query',
    schema: z.object({
      query: z
        .string()
        .min(1)
        .max(200 + v * 100)
        .describe('Words to look for'),
      mode: z.enum(['fast', 'thorough', ...(v > 2 ? (['exact'] as const) : [])]).optional(),
      filters: z
        .array(
          z.object({
            field: z.enum(['title', 'body', 'tag', 'author']),
            operator: z.enum(['equals', 'contains', 'startsWith']),
            value: z.string().max(200),
          }),
        )
        .max(5 + v)
        .optional()
        .describe('All must match'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(50 + v * 10)
        .describe('Most results'),
    }),
    sample: (value) => ({
      query: value,
      limit: 10,
      filters: [{ field: 'tag', operator: 'equals', value: 'x' }],
    }),
  }),
  (v) => ({
    verb: 'create',
    noun: 'event',
    subject: 'title',
    schema: z.object({
      title: z.string().min(1).max(200).describe('Event title'),
      start: z.string().min(10).max(40).describe('Start, ISO 8601 date-time'),
      durationMinutes: z
        .number()
        .int()
        .min(5)
        .max(60 * (8 + v)),
      attendees: z
        .array(z.string().min(3).max(254))
        .max(20 + v)
        .optional(),
      location: z
        .object({
          name: z.string().max(120),
          address: z.string().max(300).optional(),
          room: z.string().max(40).optional(),
        })
        .optional(),
      reminder: z.enum(['none', '5m', '15m', '1h', '1d']).optional(),
    }),
    sample: (value) => ({ title: value, start: '2026-12-03T09:00:00Z', durationMinutes: 30 }),
  }),
  (v) => ({
    verb: 'draft',
    noun: 'invoice',
    subject: 'customerId',
    schema: z.object({
      customerId: z.string().min(3).max(64).describe('Customer identifier'),
      currency: z.enum(v % 2 === 0 ? ['EUR', 'USD', 'GBP'] : ['EUR', 'USD', 'GBP', 'CHF', 'JPY']),
      lines: z
        .array(
          z.object({
            description: z.string().min(1).max(200),
            quantity: z.number().int().min(1).max(10_000),
            unitPrice: z.number().min(0).max(1_000_000),
            taxRate: z.number().min(0).max(0.5).optional(),
          }),
        )
        .min(1)
        .max(50 + v),
      note: z.string().max(1000).optional(),
      dueInDays: z.number().int().min(0).max(120).optional(),
    }),
    sample: (value) => ({
      customerId: value,
      currency: 'EUR',
      lines: [{ description: 'Work', quantity: 2, unitPrice: 50 }],
    }),
  }),
  (v) => ({
    verb: 'update',
    noun: 'contact',
    subject: 'id',
    schema: z.object({
      id: z.string().min(1).max(80).describe('Contact id'),
      fields: z.object({
        name: z.string().min(1).max(120).optional(),
        phone: z
          .string()
          .max(32 + v)
          .optional(),
        company: z.string().max(120).optional(),
        tags: z.array(z.string().max(40)).max(20).optional(),
      }),
      notify: z.boolean().optional().describe('Tell the contact owner'),
    }),
    sample: (value) => ({ id: value, fields: { phone: '+33 1 23 45 67 89' } }),
  }),
  (v) => ({
    verb: 'add',
    noun: 'task',
    subject: 'title',
    schema: z.object({
      title: z
        .string()
        .min(1)
        .max(140 + v * 20),
      priority: z.enum(['low', 'normal', 'high', ...(v % 2 === 1 ? (['urgent'] as const) : [])]),
      due: z.string().max(40).optional().describe('Due date, YYYY-MM-DD'),
      labels: z.array(z.string().min(1).max(30)).max(10).optional(),
      estimateHours: z.number().min(0).max(200).optional(),
      checklist: z
        .array(z.object({ text: z.string().max(200), done: z.boolean() }))
        .max(30)
        .optional(),
    }),
    sample: (value) => ({ title: value, priority: 'normal', labels: ['bench'] }),
  }),
  (v) => ({
    verb: 'fetch',
    noun: 'page',
    subject: 'url',
    schema: z.object({
      url: z.string().min(8).max(2048).describe('Address of the page'),
      maxBytes: z
        .number()
        .int()
        .min(1024)
        .max(1_000_000 * (v + 1))
        .optional(),
      format: z.enum(['markdown', 'text', 'html']).optional(),
      headers: z
        .array(z.object({ name: z.string().min(1).max(100), value: z.string().max(1000) }))
        .max(10)
        .optional(),
    }),
    sample: (value) => ({ url: value, format: 'markdown' }),
  }),
  (v) => ({
    verb: 'open',
    noun: 'ticket',
    subject: 'subject',
    schema: z.object({
      subject: z.string().min(3).max(120),
      body: z.string().max(20_000 + v * 1000),
      severity: z.enum(['sev1', 'sev2', 'sev3', 'sev4']),
      component: z.string().max(60).optional(),
      watchers: z.array(z.string().max(80)).max(10).optional(),
      links: z
        .array(z.object({ kind: z.enum(['duplicate', 'blocks', 'relates']), ticket: z.string().max(40) }))
        .optional(),
    }),
    sample: (value) => ({ subject: value, body: 'It broke.', severity: 'sev3' }),
  }),
  (v) => ({
    verb: 'resize',
    noun: 'image',
    subject: 'source',
    schema: z.object({
      source: z.string().min(1).max(4096),
      width: z
        .number()
        .int()
        .min(16)
        .max(4096 * (1 + (v % 2))),
      height: z.number().int().min(16).max(4096),
      format: z.enum(['png', 'jpeg', 'webp']).optional(),
      quality: z.number().int().min(1).max(100).optional(),
      crop: z
        .object({
          x: z.number().int().min(0),
          y: z.number().int().min(0),
          width: z.number().int().min(1),
          height: z.number().int().min(1),
        })
        .optional(),
    }),
    sample: (value) => ({ source: value, width: 640, height: 480 }),
  }),
  (v) => ({
    verb: 'schedule',
    noun: 'job',
    subject: 'command',
    schema: z.object({
      command: z.string().min(1).max(2000),
      schedule: z.object({
        kind: z.enum(['once', 'cron', 'interval']),
        at: z.string().max(40).optional(),
        cron: z.string().max(120).optional(),
        everyMinutes: z
          .number()
          .int()
          .min(1)
          .max(1440 * (v + 1))
          .optional(),
      }),
      timeoutSeconds: z.number().min(1).max(3600).optional(),
      env: z
        .array(z.object({ key: z.string().min(1).max(64), value: z.string().max(4096) }))
        .max(32)
        .optional(),
    }),
    sample: (value) => ({ command: value, schedule: { kind: 'once', at: '2026-12-03T10:00:00Z' } }),
  }),
];

/**
 * The composed turn's 50 tools, built afresh on every call: new Zod schema objects each time (a
 * generated tool set, or an MCP server's tools converted per turn). Names and samples are the same
 * on every call.
 */
export function createToolSpecs(count = 50): ToolSpec[] {
  return Array.from({ length: count }, (_, index) => {
    const template = TEMPLATES[index % TEMPLATES.length];
    if (template === undefined) throw new Error('no template');
    const variant = Math.floor(index / TEMPLATES.length);
    const { verb, noun, ...rest } = template(variant);
    return {
      name: `${verb}_${noun}_${index}`,
      description: `${verb} a ${noun} (set ${variant}) and report what happened, briefly.`,
      ...rest,
    };
  });
}

/** The same 50 tools with schemas created once, at module level (the usual category). */
export const MODULE_TOOL_SPECS: readonly ToolSpec[] = createToolSpecs();
