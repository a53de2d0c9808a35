import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_MAX_PARALLEL_CALLS } from '@switchyard/core';
import { thrownBy } from '@switchyard/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandSandbox, computerLimitsOf } from './command-sandbox';
import { loadConfig, parseConfig } from './load-config';
import { resolveAgent } from './resolve-agent';
import { resolveModelEndpoint } from './resolve-model-endpoint';
import { WorkerConfigError } from './worker-config-error';

/** The `WorkerConfigError` that `run` throws. */
const errorOf = (run: () => unknown) => thrownBy(run, WorkerConfigError);

describe('configuration errors name the field', () => {
  it.each([
    [{ categories: { web: { search: { provider: 'bing' } } } }, 'categories.web.search.provider', /brave/],
    [{ categories: { web: { serach: {} } } }, 'categories.web.serach', /not a known field/],
    [
      { categories: { web: { fetch: { maxBodyBytes: 10 * 1024 * 1024 + 1 } } } },
      'categories.web.fetch.maxBodyBytes',
      /10 MiB/,
    ],
    [
      { categories: { web: { fetch: { conversionTimeoutMs: 0 } } } },
      'categories.web.fetch.conversionTimeoutMs',
      /0/,
    ],
    [{ limits: { maxIterations: 0 } }, 'limits.maxIterations', /1/],
    [{ limits: { turnTimeoutMs: 'soon' } }, 'limits.turnTimeoutMs', /number/],
    [{ model: { baseURL: 'ftp://x' } }, 'model.baseURL', /http/],
    [{ model: { maxResponseBytes: 1000 } }, 'model.maxResponseBytes', /65536/],
    [{ model: { maxResponseBytes: 1.5e6 + 0.5 } }, 'model.maxResponseBytes', /expected int/],
    [{ database: { url: 'mysql://x' } }, 'database.url', /postgres/],
    [
      { categories: { computer: { limits: { maxReadLines: -1 } } } },
      'categories.computer.limits.maxReadLines',
      /0/,
    ],
    [
      { categories: { mcp: { servers: { calc: { command: 7 } } } } },
      'categories.mcp.servers.calc.command',
      /string/,
    ],
    [
      { categories: { mcp: { servers: { calc: { command: 'node', deferLoading: 'yes' } } } } },
      'categories.mcp.servers.calc.deferLoading',
      /boolean/,
    ],
    [
      { categories: { mcp: { servers: { calc: { command: 'node', strict: true } } } } },
      'categories.mcp.servers.calc.strict',
      /must be 'auto'/,
    ],
    [
      { categories: { mcp: { servers: { calc: { command: 'node', url: 'http://x' } } } } },
      'categories.mcp.servers.calc',
      /not both/,
    ],
    [
      { categories: { mcp: { servers: { 'a b': { command: 'node' } } } } },
      'categories.mcp.servers.a b',
      /namespace/,
    ],
    [
      { categories: { mcp: { servers: { calc: { command: 'node', maxMessageBytes: 100 } } } } },
      'categories.mcp.servers.calc.maxMessageBytes',
      /1024/,
    ],
    [
      { categories: { mcp: { servers: { docs: { url: 'http://x', callDeadlineMs: 0 } } } } },
      'categories.mcp.servers.docs.callDeadlineMs',
      /0/,
    ],
    [
      { categories: { schedule: { defaultTimeZone: 'Mars/Base' } } },
      'categories.schedule.defaultTimeZone',
      /IANA/,
    ],
    [{ categories: { web: { fetch: true } } }, 'categories.web.fetch', /./],
    [{ categories: { computer: { sandbox: 'sometimes' } } }, 'categories.computer.sandbox', /auto/],
    [{ categories: { computer: { sandbox: true } } }, 'categories.computer.sandbox', /an object/],
    [
      { categories: { computer: { sandbox: { network: 'lan' } } } },
      'categories.computer.sandbox.network',
      /none/,
    ],
    [
      { categories: { computer: { sandbox: { mode: 'always', network: 'host' } } } },
      'categories.computer.sandbox.mode',
      /required/,
    ],
    [
      { categories: { computer: { sandbox: { hiddenPaths: ['/srv/a', '/'] } } } },
      'categories.computer.sandbox.hiddenPaths[1]',
      /whole file system/,
    ],
    [
      { categories: { computer: { sandbox: { hidden: ['/srv'] } } } },
      'categories.computer.sandbox.hidden',
      /not a known field/,
    ],
    [{ categories: { brain: { semantic: true } } }, 'categories.brain.semantic', /not a known field/],
    [{ categories: { brain: { maxBytesPerAgent: 1000 } } }, 'categories.brain.maxBytesPerAgent', /one page/],
    [{ categories: { brain: { retentionDays: 0 } } }, 'categories.brain.retentionDays', />0/],
    [{ categories: { brain: { maxPageBytes: 600_000 } } }, 'categories.brain.maxPageBytes', /512 KiB/],
    [
      { categories: { computer: { skillLimits: { maxBytesPerSkill: 4096, maxBytes: 2048 } } } },
      'categories.computer.skillLimits.maxBytesPerSkill',
      /at most maxBytes/,
    ],
    [
      { categories: { computer: { skillLimits: { maxSkill: 3 } } } },
      'categories.computer.skillLimits.maxSkill',
      /not a known field/,
    ],
    [{ agent: '../x' }, 'agent', /letters/],
    [{ serve: { port: 70_000 } }, 'serve.port', /65535/],
    [{ serve: { healthPort: '8788' } }, 'serve.healthPort', /number/],
    [{ serve: { maxWaitingWork: 0 } }, 'serve.maxWaitingWork', /1/],
    [{ serve: { maxWaitingWork: 1.5 } }, 'serve.maxWaitingWork', /int/],
    [{ serve: { hots: '0.0.0.0' } }, 'serve.hots', /not a known field/],
    [{ serve: { agents: ['ok', 'a/b'] } }, 'serve.agents[1]', /letters/],
    [{ serve: { pollSeconds: 0.1 } }, 'serve.pollSeconds', /0\.5/],
    [{ serve: { tokenEnv: 'not a variable' } }, 'serve.tokenEnv', /environment variable name/],
    [{ serve: { allowedHosts: ['ok.example', 'http://bad.example'] } }, 'serve.allowedHosts[1]', /host name/],
    [
      { serve: { heartbeatMs: 5_000, staleTurnMs: 5_000 } },
      'serve.staleTurnMs',
      /longer than serve\.heartbeatMs/,
    ],
    [
      { limits: { turnTimeoutMs: 120_000 }, serve: { expireSeconds: 120 } },
      'serve.expireSeconds',
      /longer than limits\.turnTimeoutMs \(120 s\)/,
    ],
    [{ serve: { expireSeconds: 86_400 } }, 'serve.expireSeconds', /86399/],
    [{ serve: { retryDelaySeconds: 0.5 } }, 'serve.retryDelaySeconds', /expected int/],
    [{ serve: { retryLimit: -1 } }, 'serve.retryLimit', /0/],
    [{ serve: { retryBackoff: 'yes' } }, 'serve.retryBackoff', /boolean/],
    [{ serve: { console: 'off' } }, 'serve.console', /boolean/],
    [{ serve: { maxEventStreamBytes: 1024 } }, 'serve.maxEventStreamBytes', /16384/],
    [{ serve: { maxEventStreamBytes: 2 ** 31 } }, 'serve.maxEventStreamBytes', /1 GiB/],
    [{ serve: { maxRetainedTurnBytes: -1 } }, 'serve.maxRetainedTurnBytes', /0/],
    [{ serve: { maxRetainedTurnBytes: '32 MiB' } }, 'serve.maxRetainedTurnBytes', /number/],
    [{ approvals: { destructive: 'maybe' } }, 'approvals.destructive', /'allow', 'ask' or 'deny'/],
    [{ approvals: { destructive: { schedule: 'maybe' } } }, 'approvals.destructive.schedule', /'allow'/],
    [{ approvals: { destructive: { cron: 'allow' } } }, 'approvals.destructive.cron', /not a known field/],
    [{ approvals: { destructive: 3 } }, 'approvals.destructive', /by turn source/],
    [{ approvals: { tools: { 'bad key!': 'ask' } } }, 'approvals.tools.bad key!', /tool key/],
    [{ approvals: { expiresInSeconds: 0 } }, 'approvals.expiresInSeconds', /1/],
    [{ approvals: { approvers: [] } }, 'approvals.approvers', /1/],
    [{ approvals: { inDoubt: 'rerun' } }, 'approvals.inDoubt', /'report' or 'ask'/],
    [{ serve: { resumeApiTurns: 'yes' } }, 'serve.resumeApiTurns', /boolean/],
    [{ serve: { journal: 1 } }, 'serve.journal', /boolean/],
    [{ agents: { ops: { approvals: { readOnly: 'never' } } } }, 'agents.ops.approvals.readOnly', /'allow'/],
    [{ agents: { ops: { budget: 1 } } }, 'agents.ops.budget', /not a known field/],
    [
      { agents: { ops: { computer: { limits: { maxMemoryBytes: 1024 } } } } },
      'agents.ops.computer.limits.maxMemoryBytes',
      /at least 33554432/,
    ],
    [
      { agents: { ops: { computer: { sandbox: { mode: 'off' } } } } },
      'agents.ops.computer.sandbox.mode',
      /not a known field/,
    ],
    [
      { categories: { computer: { sandbox: { readOnlyPaths: ['/'] } } } },
      'categories.computer.sandbox.readOnlyPaths[0]',
      /whole file system/,
    ],
    [
      { agents: { ops: { computer: { sandbox: { readOnlyPaths: ['/srv', '/'] } } } } },
      'agents.ops.computer.sandbox.readOnlyPaths[1]',
      /whole file system/,
    ],
    [{ serve: { readTokenEnv: 'READ_TOKEN' } }, 'serve.readTokenEnv', /READ_TOKEN, which is not set/],
    [
      { limits: { turnTimeoutMs: 86_400_000 } },
      'limits.turnTimeoutMs',
      /queue expiry \(serve\.expireSeconds\) defaults to this plus 60 s, 86460 s, over the queues' limit/,
    ],
  ])('%j -> %s', (raw, field, message) => {
    const error = errorOf(() => parseConfig(raw, { env: {} }));
    expect(error.field).toBe(field);
    expect(error.message).toContain(`${field}: `);
    expect(error.issues[0]?.message).toMatch(message);
  });

  it('lists every problem, each with its field', () => {
    const error = errorOf(() =>
      parseConfig({ limits: { maxIterations: 0 }, model: { stream: 'no' } }, { env: {} }),
    );
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(['limits.maxIterations', 'model.stream']);
    expect(error.message).toMatch(/^Invalid configuration:\n- /);
  });

  it('names the environment variable a search key is read from when it is not set', () => {
    const raw = { categories: { web: { search: { provider: 'brave' } } } };
    const error = errorOf(() => parseConfig(raw, { env: {} }));
    expect(error.field).toBe('categories.web.search.apiKeyEnv');
    expect(error.message).toContain('BRAVE_API_KEY, which is not set');
    const config = parseConfig(raw, { env: { BRAVE_API_KEY: 'k' } });
    expect(config.categories.web?.search).toEqual({ provider: 'brave', apiKey: 'k' });
  });

  it('checks the environment overrides', () => {
    expect(errorOf(() => parseConfig({}, { env: { OPENAI_BASE_URL: 'localhost:8080' } })).field).toBe(
      'OPENAI_BASE_URL',
    );
    expect(errorOf(() => parseConfig({}, { env: { DATABASE_URL: 'sqlite://x' } })).field).toBe(
      'DATABASE_URL',
    );
  });
});

describe('approval policies and the read-only token', () => {
  it('applies approvals to every agent and an agent’s own over it, field by field', () => {
    const config = parseConfig(
      {
        approvals: { destructive: 'ask', tools: { 'calc.add': 'deny' }, expiresInSeconds: 600 },
        agents: {
          ops: {
            approvals: {
              destructive: 'deny',
              tools: { submit_result: 'ask' },
              approvers: ['sre'],
              inDoubt: 'ask',
            },
          },
        },
      },
      { env: {} },
    );
    const every = (decision: string) => ({
      api: decision,
      schedule: decision,
      task: decision,
      job: decision,
    });
    expect(config.approvals).toEqual({
      destructive: every('ask'),
      readOnly: 'allow',
      tools: { 'calc.add': 'deny' },
      expiresInSeconds: 600,
      approvers: ['operator'],
      inDoubt: 'report',
      origins: { destructive: every('approvals.destructive'), readOnly: 'default' },
    });
    expect(config.agents.ops?.approvals).toEqual({
      destructive: every('deny'),
      readOnly: 'allow',
      tools: { 'calc.add': 'deny', submit_result: 'ask' },
      expiresInSeconds: 600,
      approvers: ['sre'],
      inDoubt: 'ask',
      origins: { destructive: every('agents.ops.approvals.destructive'), readOnly: 'default' },
    });
  });

  it('holds destructive calls of unattended turns by default, and takes decisions source by source', () => {
    // No policy at all: API turns run them as before; schedule, task and job turns wait for an operator.
    expect(parseConfig({}, { env: {} }).approvals).toMatchObject({
      destructive: { api: 'allow', schedule: 'ask', task: 'ask', job: 'ask' },
      readOnly: 'allow',
      tools: {},
      origins: { destructive: { api: 'default', schedule: 'default', task: 'default', job: 'default' } },
    });
    // Opting out explicitly, for every source or for one.
    expect(parseConfig({ approvals: { destructive: 'allow' } }, { env: {} }).approvals.destructive).toEqual({
      api: 'allow',
      schedule: 'allow',
      task: 'allow',
      job: 'allow',
    });
    const config = parseConfig(
      {
        approvals: { destructive: { schedule: 'allow', api: 'ask' } },
        agents: { ops: { approvals: { destructive: { job: 'deny' } } }, plain: {} },
      },
      { env: {} },
    );
    expect(config.approvals.destructive).toEqual({ api: 'ask', schedule: 'allow', task: 'ask', job: 'ask' });
    expect(config.agents.ops?.approvals.destructive).toEqual({
      api: 'ask',
      schedule: 'allow',
      task: 'ask',
      job: 'deny',
    });
    expect(config.agents.ops?.approvals.origins.destructive).toEqual({
      api: 'approvals.destructive.api',
      schedule: 'approvals.destructive.schedule',
      task: 'default',
      job: 'agents.ops.approvals.destructive.job',
    });
    expect(config.agents.plain?.approvals).toEqual(config.approvals);
  });

  it('reads the read-only token from its variable, and refuses one without the bearer token or equal to it', () => {
    const raw = { serve: { readTokenEnv: 'READ_TOKEN' } };
    const token = 'bearer-token-0123456789';
    const config = parseConfig(raw, {
      env: { READ_TOKEN: 'read-token-0123456789', SWITCHYARD_SERVE_TOKEN: token },
    });
    expect(config.serve).toMatchObject({
      readToken: 'read-token-0123456789',
      readTokenVariable: 'READ_TOKEN',
    });
    expect(
      errorOf(() => parseConfig(raw, { env: { READ_TOKEN: 'read-token-0123456789' } })).issues[0],
    ).toMatchObject({
      field: 'serve.readTokenEnv',
      message: expect.stringContaining('needs the bearer token too'),
    });
    expect(
      errorOf(() => parseConfig(raw, { env: { READ_TOKEN: token, SWITCHYARD_SERVE_TOKEN: token } })).issues[0]
        ?.message,
    ).toMatch(/must differ from the bearer token/);
    expect(
      errorOf(() => parseConfig(raw, { env: { READ_TOKEN: 'short', SWITCHYARD_SERVE_TOKEN: token } })).field,
    ).toBe('READ_TOKEN');
  });
});

describe('defaults and environment overrides', () => {
  it('defaults to computer, web fetch and schedule tools when the file names no categories', () => {
    const config = parseConfig({}, { env: {}, baseDir: '/srv/worker' });
    expect(Object.keys(config.categories)).toEqual(['computer', 'web', 'schedule']);
    expect(config.categories.computer?.homeRoot).toBe('/srv/worker/.switchyard/homes');
    expect(config.categories.web).toEqual({ search: undefined, fetch: {} });
    expect(config.database).toEqual({ url: undefined, dataDir: '/srv/worker/.switchyard/db' });
    expect(config.limits).toEqual({
      maxIterations: 50,
      turnTimeoutMs: 600_000,
      toolTimeoutMs: undefined,
      maxParallelCalls: DEFAULT_MAX_PARALLEL_CALLS,
    });
    expect(parseConfig({ limits: { maxParallelCalls: 2 } }, { env: {} }).limits.maxParallelCalls).toBe(2);
    expect(() => parseConfig({ limits: { maxParallelCalls: 0 } }, { env: {} })).toThrow(
      /limits\.maxParallelCalls/,
    );
    expect(parseConfig({ categories: {} }, { env: {} }).categories).toEqual({});
  });

  it('passes the Skill limits and the Brain limits through, leaving the rest to their packages’ defaults', () => {
    const config = parseConfig(
      {
        categories: {
          computer: { skillLimits: { maxSkills: 20, maxBytes: 8192 } },
          brain: { maxPagesPerAgent: 500, retentionDays: 7, recallTimeoutMs: 500 },
        },
      },
      { env: {}, baseDir: '/srv/worker' },
    );
    expect(config.categories.computer?.skillLimits).toEqual({ maxSkills: 20, maxBytes: 8192 });
    expect(config.categories.brain).toEqual({
      maxPagesPerAgent: 500,
      retentionDays: 7,
      recallTimeoutMs: 500,
    });
    expect(parseConfig({}, { env: {} }).categories.computer?.skillLimits).toEqual({});
    expect(parseConfig({ categories: { brain: {} } }, { env: {} }).categories.brain).toEqual({});
  });

  it('passes web_fetch limits through, the conversion time limit included', () => {
    const fetch = { timeoutMs: 15_000, conversionTimeoutMs: 4_000, maxBodyBytes: 10 * 1024 * 1024 };
    const config = parseConfig({ categories: { web: { fetch } } }, { env: {}, baseDir: '/srv/worker' });
    expect(config.categories.web?.fetch).toEqual(fetch);
  });

  it("passes an MCP server's limits through to tools-mcp", () => {
    const limits = {
      callDeadlineMs: 120_000,
      maxMessageBytes: 1024 * 1024,
      maxToolListPages: 4,
      maxTools: 50,
      maxSchemaBytes: 64 * 1024,
      maxResultBytes: 512 * 1024,
    };
    const config = parseConfig(
      { categories: { mcp: { servers: { docs: { url: 'https://docs.example.com/mcp', ...limits } } } } },
      { env: {}, baseDir: '/srv/worker' },
    );
    expect(config.categories.mcp?.servers.docs).toEqual({ url: 'https://docs.example.com/mcp', ...limits });
  });

  it("sandboxes commands by default ('auto', network 'none'); takes a mode alone or the whole object", () => {
    expect(parseConfig({}, { env: {}, baseDir: '/srv/worker' }).categories.computer?.sandbox).toEqual({
      mode: 'auto',
      network: 'none',
      hiddenPaths: [],
      readOnlyPaths: [],
    });
    const sandboxOf = (sandbox: unknown) =>
      parseConfig({ categories: { computer: { sandbox } } }, { env: {}, baseDir: '/srv/worker' }).categories
        .computer?.sandbox;
    expect(sandboxOf('required')).toEqual({
      mode: 'required',
      network: 'none',
      hiddenPaths: [],
      readOnlyPaths: [],
    });
    expect(
      sandboxOf({ network: 'host', hiddenPaths: ['secrets', '/etc/worker'], readOnlyPaths: ['tools'] }),
    ).toEqual({
      mode: 'auto',
      network: 'host',
      hiddenPaths: ['/srv/worker/secrets', '/etc/worker'],
      readOnlyPaths: ['/srv/worker/tools'],
    });
  });

  it("takes an agent's own command limits and sandbox network (agents.<name>.computer), over the category's", () => {
    const config = parseConfig(
      {
        categories: { computer: { limits: { maxMemoryBytes: 512 * 1024 * 1024, maxProcesses: 256 } } },
        agents: {
          builder: {
            computer: {
              limits: { maxMemoryBytes: 4 * 1024 * 1024 * 1024, maxHomeBytes: 20 * 1024 * 1024 * 1024 },
              sandbox: { network: 'host', readOnlyPaths: ['toolchains'] },
            },
          },
        },
      },
      { env: {}, baseDir: '/srv/worker' },
    );
    expect(config.agents.builder?.computer).toEqual({
      limits: { maxMemoryBytes: 4 * 1024 * 1024 * 1024, maxHomeBytes: 20 * 1024 * 1024 * 1024 },
      network: 'host',
      readOnlyPaths: ['/srv/worker/toolchains'],
    });
    expect(computerLimitsOf(config, 'builder')).toEqual({
      maxMemoryBytes: 4 * 1024 * 1024 * 1024,
      maxProcesses: 256,
      maxHomeBytes: 20 * 1024 * 1024 * 1024,
    });
    expect(computerLimitsOf(config, 'main')).toEqual({
      maxMemoryBytes: 512 * 1024 * 1024,
      maxProcesses: 256,
    });
    expect(commandSandbox(config, 'builder')).toMatchObject({
      network: 'host',
      readOnlyPaths: ['/srv/worker/toolchains'],
    });
    expect(commandSandbox(config, 'main')).toMatchObject({ network: 'none', readOnlyPaths: [] });
  });

  it('lets OPENAI_API_KEY, OPENAI_BASE_URL, SWITCHYARD_MODEL and DATABASE_URL override the file', () => {
    const raw = {
      model: { name: 'from-file', baseURL: 'http://file.example/v1' },
      database: { url: 'postgres://file/db' },
    };
    const fromFile = parseConfig(raw, { env: {} });
    expect(fromFile.model).toMatchObject({
      name: 'from-file',
      baseURL: 'http://file.example/v1',
      apiKey: undefined,
      maxResponseBytes: 32 * 1024 * 1024,
    });
    expect(parseConfig({ model: { maxResponseBytes: 65_536 } }, { env: {} }).model.maxResponseBytes).toBe(
      65_536,
    );
    const overridden = parseConfig(raw, {
      env: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        SWITCHYARD_MODEL: 'from-env',
        DATABASE_URL: 'postgres://env/db',
      },
    });
    expect(overridden.model).toMatchObject({
      name: 'from-env',
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-test',
    });
    expect(overridden.database.url).toBe('postgres://env/db');
  });

  it('resolves an agent home under the home root and refuses names that leave it', () => {
    const config = parseConfig(
      { categories: { computer: { homeRoot: 'homes' } } },
      { env: {}, baseDir: '/w' },
    );
    expect(resolveAgent(config)).toEqual({ id: 'main', home: '/w/homes/main' });
    expect(resolveAgent(config, 'ada')).toEqual({ id: 'ada', home: '/w/homes/ada' });
    expect(errorOf(() => resolveAgent(config, '..')).field).toBe('agent');
    expect(errorOf(() => resolveAgent(config, 'a/b')).field).toBe('agent');
  });
});

describe('the serve section', () => {
  it('has defaults, and reads the token from SWITCHYARD_SERVE_TOKEN', () => {
    expect(parseConfig({}, { env: {} }).serve).toEqual({
      host: '127.0.0.1',
      port: 8787,
      agents: undefined,
      token: undefined,
      tokenVariable: 'SWITCHYARD_SERVE_TOKEN',
      allowedHosts: [],
      graceMs: 30_000,
      tickMs: 1_000,
      pollSeconds: 2,
      heartbeatMs: 10_000,
      staleTurnMs: 60_000,
      resumeApiTurns: true,
      journal: true,
      // The queues' expiry follows the turn limit (600 s by default), a minute past it.
      expireSeconds: 660,
      retryLimit: 2,
      retryDelaySeconds: 5,
      retryBackoff: true,
      console: true,
      maxEventStreamBytes: 4 * 1024 * 1024,
      maxEventStreams: 128,
      bodyTimeoutMs: 10_000,
      maxRetainedTurnBytes: 32 * 1024 * 1024,
    });
    expect(parseConfig({ limits: { turnTimeoutMs: 90_500 } }, { env: {} }).serve.expireSeconds).toBe(151);
    const token = 'a-token-of-enough-length';
    expect(parseConfig({}, { env: { SWITCHYARD_SERVE_TOKEN: token } }).serve.token).toBe(token);
  });

  it('takes every field from the file, the token from the variable serve.tokenEnv names', () => {
    // Taken as they are: each differs from its default.
    const timings = {
      graceMs: 0,
      tickMs: 500,
      pollSeconds: 0.5,
      heartbeatMs: 2_000,
      staleTurnMs: 20_000,
      resumeApiTurns: false,
      journal: false,
      expireSeconds: 900,
      retryLimit: 4,
      retryDelaySeconds: 0,
      retryBackoff: false,
      console: false,
      maxEventStreamBytes: 65_536,
      maxEventStreams: 7,
      bodyTimeoutMs: 2_500,
      maxRetainedTurnBytes: 0,
    };
    const serve = parseConfig(
      {
        serve: {
          host: '0.0.0.0',
          port: 9000,
          agents: ['ada', 'bob'],
          tokenEnv: 'FLEET_TOKEN',
          allowedHosts: ['switchyard.internal', '10.0.0.5:9000'],
          ...timings,
        },
      },
      { env: { FLEET_TOKEN: 'fleet-token-0123456789', SWITCHYARD_SERVE_TOKEN: 'not-this-one-0123456789' } },
    ).serve;
    expect(serve).toEqual({
      host: '0.0.0.0',
      port: 9000,
      agents: ['ada', 'bob'],
      token: 'fleet-token-0123456789',
      tokenVariable: 'FLEET_TOKEN',
      allowedHosts: ['switchyard.internal', '10.0.0.5:9000'],
      ...timings,
    });
  });

  it('names the variable when the token is missing or too short', () => {
    const missing = errorOf(() => parseConfig({ serve: { tokenEnv: 'FLEET_TOKEN' } }, { env: {} }));
    expect(missing.field).toBe('serve.tokenEnv');
    expect(missing.message).toContain('FLEET_TOKEN, which is not set');
    const short = errorOf(() => parseConfig({}, { env: { SWITCHYARD_SERVE_TOKEN: 'short' } }));
    expect(short.field).toBe('SWITCHYARD_SERVE_TOKEN');
    expect(short.message).toContain('at least 16 characters');
  });
});

describe('the model endpoint', () => {
  it('says exactly which variable to set', () => {
    const none = errorOf(() => resolveModelEndpoint(parseConfig({}, { env: {} })));
    expect(none.field).toBe('OPENAI_API_KEY');
    expect(none.message).toContain('Set OPENAI_API_KEY to use api.openai.com, or set OPENAI_BASE_URL');
    const noModel = errorOf(() =>
      resolveModelEndpoint(parseConfig({}, { env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' } })),
    );
    expect(noModel.field).toBe('SWITCHYARD_MODEL');
    expect(noModel.message).toContain('Set SWITCHYARD_MODEL');
    expect(
      resolveModelEndpoint(parseConfig({ model: { name: 'm' } }, { env: { OPENAI_API_KEY: 'sk' } })),
    ).toEqual({ model: 'm', baseURL: undefined, apiKey: 'sk' });
  });
});

describe('loadConfig', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'switchyard-config-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('reads switchyard.config.json from the working directory and resolves paths against it', async () => {
    await writeFile(
      path.join(directory, 'switchyard.config.json'),
      JSON.stringify({ categories: { computer: { homeRoot: 'h' } }, database: { dataDir: 'db' } }),
    );
    const config = await loadConfig({ cwd: directory, env: {} });
    expect(config.source).toBe(path.join(directory, 'switchyard.config.json'));
    expect(config.categories.computer?.homeRoot).toBe(path.join(directory, 'h'));
    expect(config.database.dataDir).toBe(path.join(directory, 'db'));
  });

  it('falls back to the defaults when there is no file, and refuses a named file that is missing or not JSON', async () => {
    const empty = await mkdtemp(path.join(directory, 'empty-'));
    expect((await loadConfig({ cwd: empty, env: {} })).source).toBeUndefined();
    await expect(loadConfig({ path: 'nope.json', cwd: empty, env: {} })).rejects.toThrow(
      /nope\.json: \(file\): cannot be read/,
    );
    await writeFile(path.join(empty, 'bad.json'), '{ "model": ');
    await expect(loadConfig({ cwd: empty, env: { SWITCHYARD_CONFIG: 'bad.json' } })).rejects.toThrow(
      /\(file\): is not valid JSON/,
    );
  });

  it('names the file and the field for a problem inside it', async () => {
    await writeFile(path.join(directory, 'typo.json'), JSON.stringify({ limits: { maxIteration: 3 } }));
    await expect(loadConfig({ path: 'typo.json', cwd: directory, env: {} })).rejects.toThrow(
      `Invalid ${path.join(directory, 'typo.json')}: limits.maxIteration: is not a known field`,
    );
  });
});
