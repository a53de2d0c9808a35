import { z } from 'zod';
import { brainSchema } from './brain-schema';
import { skillLimitsSchema } from './skill-limits-schema';

// Every object is strict: a misspelt field is an error naming it, not a silently ignored option.
const positiveInt = z.number().int().positive();
const milliseconds = z.number().int().positive().max(2_147_483_647);
const stringRecord = z.record(z.string(), z.string());

const computerLimitsSchema = z.strictObject({
  defaultTimeoutMs: milliseconds.optional(),
  maxTimeoutMs: milliseconds.optional(),
  killGraceMs: milliseconds.optional(),
  maxOutputBytes: positiveInt.optional(),
  maxSavedOutputBytes: positiveInt.optional(),
  maxFileBytes: positiveInt.optional(),
  maxReadLines: positiveInt.optional(),
  maxReadBytes: positiveInt.optional(),
  maxLineLength: positiveInt.optional(),
  maxListEntries: positiveInt.optional(),
  maxSearchMatches: positiveInt.optional(),
  searchTimeoutMs: milliseconds.optional(),
  maxWalkEntries: positiveInt.optional(),
  maxSavedOutputs: positiveInt.optional(),
  maxProcesses: positiveInt.min(8).optional(),
  maxMemoryBytes: positiveInt.min(32 * 1024 * 1024, 'must be at least 33554432 (32 MiB)').optional(),
  maxCpuSeconds: positiveInt.optional(),
  maxOpenFiles: positiveInt.min(32).optional(),
  maxHomeBytes: positiveInt.min(1024 * 1024, 'must be at least 1048576 (1 MiB)').optional(),
});

const sandboxModeSchema = z.enum(['auto', 'required', 'off']);
// `z.string()` first: a value that is not a string fails that branch by its type, so an object's
// mistakes are reported with their field (`categories.computer.sandbox.network`).
const sandboxSchema = z.union(
  [
    z.string().pipe(sandboxModeSchema),
    z.strictObject({
      mode: sandboxModeSchema.optional(),
      network: z.enum(['none', 'host']).optional(),
      hiddenPaths: z.array(z.string().min(1)).optional(),
      readOnlyPaths: z.array(z.string().min(1)).optional(),
    }),
  ],
  { error: "must be 'auto', 'required', 'off' or an object { mode, network, hiddenPaths, readOnlyPaths }" },
);

/**
 * An agent's own command settings (`agents.<name>.computer`): its limits over
 * `categories.computer.limits` field by field, and its sandbox's network and extra read-only paths.
 */
const agentComputerSchema = z.strictObject({
  limits: computerLimitsSchema.optional(),
  sandbox: z
    .strictObject({
      network: z.enum(['none', 'host']).optional(),
      readOnlyPaths: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

const computerSchema = z.strictObject({
  homeRoot: z.string().min(1).optional(),
  env: z.array(z.string().min(1)).optional(),
  skills: z.boolean().optional(),
  skillLimits: skillLimitsSchema.optional(),
  limits: computerLimitsSchema.optional(),
  sandbox: sandboxSchema.optional(),
});

const searchBase = {
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http: or https: URL' }).optional(),
  timeoutMs: milliseconds.optional(),
  defaultCount: z.number().int().min(1).max(20).optional(),
};
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must be an environment variable name' });

const searchSchema = z.discriminatedUnion(
  'provider',
  [
    z.strictObject({
      provider: z.literal('brave'),
      ...searchBase,
      apiKeyEnv: envName.optional(),
      country: z.string().length(2).optional(),
      safesearch: z.enum(['off', 'moderate', 'strict']).optional(),
    }),
    z.strictObject({
      provider: z.literal('tavily'),
      ...searchBase,
      apiKeyEnv: envName.optional(),
      searchDepth: z.enum(['basic', 'advanced']).optional(),
      topic: z.enum(['general', 'news']).optional(),
    }),
    z.strictObject({
      provider: z.literal('searxng'),
      ...searchBase,
      baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http: or https: URL' }),
      categories: z.string().optional(),
      language: z.string().optional(),
      headers: stringRecord.optional(),
    }),
  ],
  { error: "must be one of 'brave', 'tavily', 'searxng'" },
);

const fetchSchema = z.strictObject({
  timeoutMs: milliseconds.optional(),
  conversionTimeoutMs: milliseconds.optional(),
  maxBodyBytes: positiveInt.max(10 * 1024 * 1024, 'must be at most 10485760 (10 MiB)').optional(),
  maxRedirects: z.number().int().min(0).max(20).optional(),
  defaultMaxLength: positiveInt.optional(),
  userAgent: z.string().min(1).optional(),
  allowPrivateNetwork: z.boolean().optional(),
  allowedTargets: z.array(z.string().min(1)).optional(),
});

const webSchema = z.strictObject({
  search: searchSchema.optional(),
  fetch: z.union([z.literal(false), fetchSchema]).optional(),
});

const scheduleSchema = z.strictObject({
  defaultTimeZone: z.string().min(1).optional(),
});

const workflowSchema = z.strictObject({});

const mcpBytes = z.number().int().min(1024).max(1_073_741_824);
const mcpCount = z.number().int().positive().max(1_000_000);
const mcpCommon = {
  deferLoading: z.boolean().optional(),
  strict: z.literal('auto', { error: "must be 'auto' (or left out: schemas sent unchanged)" }).optional(),
  description: z.string().trim().min(1).optional(),
  startupTimeoutMs: milliseconds.optional(),
  callTimeoutMs: milliseconds.optional(),
  // Each server's limits on what it may send (defaults and meaning: tools-mcp's README).
  callDeadlineMs: milliseconds.optional(),
  maxMessageBytes: mcpBytes.optional(),
  maxToolListPages: mcpCount.optional(),
  maxTools: mcpCount.optional(),
  maxSchemaBytes: mcpBytes.optional(),
  maxResultBytes: mcpBytes.optional(),
};
const mcpServerSchema = z.union(
  [
    z.strictObject({
      ...mcpCommon,
      command: z.string().trim().min(1),
      args: z.array(z.string()).optional(),
      env: stringRecord.optional(),
      cwd: z.string().min(1).optional(),
    }),
    z.strictObject({
      ...mcpCommon,
      url: z.url({ protocol: /^https?$/, error: 'must be an http: or https: URL' }),
      headers: stringRecord.optional(),
    }),
  ],
  { error: 'needs either command (a stdio server) or url (a streamable HTTP server), not both' },
);

const mcpSchema = z.strictObject({
  servers: z.record(
    z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, {
      error: "a server name becomes its tools' namespace: letters, digits, '_' and '-', 1 to 64 characters",
    }),
    mcpServerSchema,
  ),
});

const serveSchema = z.strictObject({
  host: z.string().trim().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  healthPort: z.number().int().min(0).max(65_535).optional(),
  maxWaitingWork: z.number().int().min(1).max(100_000).optional(),
  agents: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: "must be letters, digits, '_', '.' and '-' (1 to 64)" }),
    )
    .min(1)
    .optional(),
  tokenEnv: envName.optional(),
  readTokenEnv: envName.optional(),
  allowedHosts: z
    .array(
      z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(:\d{1,5})?$/, {
        error:
          'must be a host name or address, optionally with :port (e.g. "switchyard.internal" or "10.0.0.5:8787")',
      }),
    )
    .optional(),
  graceMs: z.number().int().min(0).max(2_147_483_647).optional(),
  tickMs: milliseconds.optional(),
  pollSeconds: z.number().min(0.5).max(3_600).optional(),
  heartbeatMs: milliseconds.optional(),
  staleTurnMs: milliseconds.optional(),
  resumeApiTurns: z.boolean().optional(),
  journal: z.boolean().optional(),
  // pg-boss keeps expiry, retries and delays as whole seconds; it refuses an expiry of a day or more.
  expireSeconds: z.number().int().min(1).max(86_399).optional(),
  retryLimit: z.number().int().min(0).max(100).optional(),
  retryDelaySeconds: z.number().int().min(0).max(86_400).optional(),
  retryBackoff: z.boolean().optional(),
  console: z.boolean().optional(),
  maxEventStreamBytes: z
    .number()
    .int()
    .min(16 * 1024, 'must be at least 16384 (16 KiB): one event must fit')
    .max(1024 * 1024 * 1024, 'must be at most 1073741824 (1 GiB)')
    .optional(),
  maxEventStreams: z.number().int().min(1).max(100_000).optional(),
  bodyTimeoutMs: z.number().int().min(100).max(600_000).optional(),
  maxRetainedTurnBytes: z
    .number()
    .int()
    .min(0)
    .max(16 * 1024 * 1024 * 1024, 'must be at most 17179869184 (16 GiB)')
    .optional(),
});

const approvalDecision = z.enum(['allow', 'ask', 'deny'], { error: "must be 'allow', 'ask' or 'deny'" });

/** A decision for every turn, or one by the turn's source (those left out keep their default). */
const decisionBySource = z.union(
  [
    // A string first, so that an object is reported against the object's fields.
    z
      .string()
      .pipe(approvalDecision),
    z.strictObject({
      api: approvalDecision.optional(),
      schedule: approvalDecision.optional(),
      task: approvalDecision.optional(),
      job: approvalDecision.optional(),
    }),
  ],
  {
    error:
      "must be 'allow', 'ask' or 'deny', or an object of them by turn source: { api, schedule, task, job }",
  },
);

/** An agent's approval policy: what happens to each call of its unattended turns. */
const approvalsSchema = z.strictObject({
  destructive: decisionBySource.optional(),
  readOnly: approvalDecision.optional(),
  tools: z
    .record(
      z.string().regex(/^([a-zA-Z0-9_-]{1,64}\.)?[a-zA-Z0-9_-]{1,64}$/, {
        error: 'must be a tool key: name, or namespace.name for an MCP tool',
      }),
      approvalDecision,
    )
    .optional(),
  expiresInSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 60 * 60)
    .optional(),
  approvers: z.array(z.string().trim().min(1).max(200)).min(1).optional(),
  inDoubt: z.enum(['report', 'ask'], { error: "must be 'report' or 'ask'" }).optional(),
});

/**
 * A category package installed by configuration (`categories.<package name>`): the options its
 * creator receives, the creator's export name and the worker services it asks for.
 */
export const categoryPackageSchema = z.strictObject({
  options: z.record(z.string(), z.unknown()).optional(),
  export: z
    .string()
    .regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, { error: 'must be the name of a JavaScript export' })
    .optional(),
  services: z
    .array(
      z.enum(['schedules', 'workflows', 'backgroundJobs', 'brain'], {
        error: "must be 'schedules', 'workflows', 'backgroundJobs' or 'brain'",
      }),
    )
    .optional(),
});

/**
 * An agent's spending and concurrency limits (`budgets`, `agents.<name>.budgets`): each field a
 * positive whole number; defaults and meaning in `DEFAULT_AGENT_BUDGETS`.
 */
const budgetsSchema = z.strictObject({
  tokensPerTurn: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  tokensPerDay: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  turnsAtOnce: z.number().int().min(1).max(10_000).optional(),
  schedulesPerHour: z.number().int().min(1).max(1_000_000).optional(),
  scheduleFiresPerHour: z.number().int().min(1).max(1_000_000).optional(),
  workflowsPerHour: z.number().int().min(1).max(1_000_000).optional(),
  backgroundJobsPerHour: z.number().int().min(1).max(1_000_000).optional(),
});

const agentNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: "must be letters, digits, '_', '.' and '-' (1 to 64)" });

/** The JSON shape of `switchyard.config.json` (before environment overrides and defaults). */
export const configFileSchema = z.strictObject({
  $schema: z.string().optional(),
  model: z
    .strictObject({
      name: z.string().min(1).optional(),
      baseURL: z.url({ protocol: /^https?$/, error: 'must be an http: or https: URL' }).optional(),
      reasoningEffort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
      maxOutputTokens: positiveInt.optional(),
      toolSearch: z.enum(['native', 'client']).optional(),
      chaining: z.enum(['stateless', 'previous-response-id']).optional(),
      stream: z.boolean().optional(),
      maxRetries: z.number().int().min(0).max(10).optional(),
      // At least 64 KiB: one response of a few tools' calls is bigger than a handful of kilobytes.
      maxResponseBytes: z.number().int().min(65_536).max(Number.MAX_SAFE_INTEGER).optional(),
    })
    .optional(),
  agent: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: "must be letters, digits, '_', '.' and '-' (1 to 64)" })
    .optional(),
  instructions: z.string().min(1).optional(),
  categories: z
    .strictObject({
      computer: computerSchema.optional(),
      web: webSchema.optional(),
      schedule: scheduleSchema.optional(),
      jobs: z.strictObject({}).optional(),
      workflow: workflowSchema.optional(),
      brain: brainSchema.optional(),
      mcp: mcpSchema.optional(),
    })
    // Any other key names a category package (`"@acme/tools-crm": { "options": { ... } }`), composed
    // after the built-in ones in the file's order (resolve-categories.ts checks the name).
    .catchall(categoryPackageSchema)
    .optional(),
  limits: z
    .strictObject({
      maxIterations: z.number().int().min(1).max(1_000).optional(),
      turnTimeoutMs: milliseconds.optional(),
      toolTimeoutMs: milliseconds.optional(),
      maxParallelCalls: z.number().int().min(1).max(256).optional(),
    })
    .optional(),
  serve: serveSchema.optional(),
  approvals: approvalsSchema.optional(),
  budgets: budgetsSchema.optional(),
  agents: z
    .record(
      agentNameSchema,
      z.strictObject({
        approvals: approvalsSchema.optional(),
        computer: agentComputerSchema.optional(),
        budgets: budgetsSchema.optional(),
      }),
    )
    .optional(),
  database: z
    .strictObject({
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// or postgresql:// URL' })
        .optional(),
      dataDir: z.string().min(1).optional(),
    })
    .optional(),
});

/** `switchyard.config.json` as written. */
export type ConfigFile = z.infer<typeof configFileSchema>;
