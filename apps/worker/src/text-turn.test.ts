import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { toolKey } from '@switchyard/core/internal';
import type { BrainService } from '@switchyard/tools-brain';
import { connectMcpServers, type McpServers } from '@switchyard/tools-mcp';
import type { ScheduleService } from '@switchyard/tools-schedule';
import type { BackgroundJobService, WorkflowService } from '@switchyard/tools-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcStdioServer } from './__fixtures__/mcp-fixture';
import { parseConfig } from './config/load-config';
import { resolveAgent } from './config/resolve-agent';
import { buildTextTurnInstructions, buildTextTurnSections, buildTextTurnTools } from './text-turn';

// Composition only reads the service's shape; the schedule tools against the real control plane
// are exercised in schedule-service.test.ts and the CLI tests.
const unusedScheduleService: ScheduleService = {
  createSchedule: () => Promise.reject(new Error('not used')),
  listSchedules: () => Promise.reject(new Error('not used')),
  cancelSchedule: () => Promise.reject(new Error('not used')),
};
const notUsed = () => Promise.reject(new Error('not used'));
const unusedWorkflows: WorkflowService = {
  startWorkflow: notUsed,
  showWorkflow: notUsed,
  listWorkflows: notUsed,
  cancelWorkflow: notUsed,
};
const unusedJobs: BackgroundJobService = {
  startBackgroundJob: notUsed,
  checkBackgroundJob: notUsed,
  cancelBackgroundJob: notUsed,
};
const unusedBrain: BrainService = { remember: notUsed, recall: notUsed, getPage: notUsed, forget: notUsed };

/** The todo tool, then the computer category's tools, in the order a turn offers them. */
const COMPUTER_TOOL_KEYS = [
  'update_todos',
  'run_command',
  'read_file',
  'list_files',
  'search_files',
  'write_file',
  'edit_file',
];

describe('text-turn composition', () => {
  let root: string;
  let mcp: McpServers;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-text-turn-'));
    await mkdir(path.join(root, 'homes', 'ada'), { recursive: true });
    mcp = await connectMcpServers({
      servers: { calc: { command: process.execPath, args: [calcStdioServer] } },
    });
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    await rm(root, { recursive: true, force: true });
  });

  function contextFor(categories: Record<string, unknown>) {
    const config = parseConfig(
      { categories: { ...categories, ...(categories.computer ? { computer: { homeRoot: 'homes' } } : {}) } },
      { env: { BRAVE_API_KEY: 'k' }, baseDir: root },
    );
    return {
      config,
      agent: resolveAgent(config, 'ada'),
      services: {
        schedules: unusedScheduleService,
        workflows: unusedWorkflows,
        backgroundJobs: unusedJobs,
        brain: unusedBrain,
        mcp,
      },
      todos: { items: [] },
    };
  }

  it('builds every enabled category in the fixed order', () => {
    const context = contextFor({
      mcp: { servers: {} },
      web: { search: { provider: 'brave' }, fetch: {} },
      schedule: {},
      computer: {},
      workflow: {},
      brain: {},
      jobs: {},
    });
    expect(buildTextTurnSections(context).map((section) => section.category)).toEqual([
      'todo',
      'computer',
      'web',
      'schedule',
      'jobs',
      'workflow',
      'brain',
      'mcp',
    ]);
    const keys = buildTextTurnTools(context).map(toolKey);
    expect(keys.slice(0, 7)).toEqual(COMPUTER_TOOL_KEYS);
    expect(keys.slice(7, 11)).toEqual(['web_search', 'web_fetch', 'create_schedule', 'list_schedules']);
    expect(keys.slice(11, 19)).toEqual([
      'cancel_schedule',
      'start_background_job',
      'check_background_job',
      'cancel_background_job',
      'workflow',
      'show_workflow',
      'list_workflows',
      'cancel_workflow',
    ]);
    expect(keys.slice(19, 23)).toEqual(['remember', 'recall', 'get_page', 'forget']);
    expect(keys.slice(23)).toEqual(mcp.tools().map(toolKey));
    expect(keys).toContain('calc.add');
  });

  it('leaves a disabled category out entirely', () => {
    const keys = buildTextTurnTools(contextFor({ computer: {}, web: { fetch: false } })).map(toolKey);
    expect(keys).toEqual(COMPUTER_TOOL_KEYS);
    expect(buildTextTurnTools(contextFor({})).map(toolKey)).toEqual(['update_todos']);
    const withoutSchedule = buildTextTurnTools(contextFor({ web: {}, mcp: { servers: {} } })).map(toolKey);
    expect(withoutSchedule.filter((key) => key.includes('schedule'))).toEqual([]);
    expect(withoutSchedule.slice(0, 2)).toEqual(['update_todos', 'web_fetch']);
  });

  it('refuses an enabled category whose service is missing, naming it', () => {
    const context = { ...contextFor({ schedule: {} }), services: {} };
    expect(() => buildTextTurnTools(context)).toThrow(
      /^services\.schedules: categories\.schedule is enabled/,
    );
  });

  it("projects the home's Skills into the instructions on every call", async () => {
    const context = contextFor({ computer: {} });
    const before = await buildTextTurnInstructions(context);
    expect(before.instructions).toBe(context.config.instructions);
    const skill = path.join(context.agent.home, 'skills', 'release-notes');
    await mkdir(skill, { recursive: true });
    await writeFile(
      path.join(skill, 'SKILL.md'),
      '---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nSteps...\n',
    );
    const after = await buildTextTurnInstructions(context);
    expect(after.skills).toEqual(['release-notes']);
    expect(after.instructions).toMatch(
      /- release-notes \(instructions: skills\/release-notes\/SKILL\.md\):\n<skill-description-[0-9a-f]{16} skill="release-notes">\nWrite release notes from the git log\.\n/,
    );
    expect(after.instructions.startsWith(context.config.instructions)).toBe(true);
    await writeFile(path.join(skill, 'SKILL.md'), '---\nname: wrong\n---\n');
    const broken = await buildTextTurnInstructions(context);
    expect(broken.skills).toEqual([]);
    expect(broken.skillProblems[0]?.file).toBe('skills/release-notes/SKILL.md');
  });

  it('reads and projects the Skills within categories.computer.skillLimits', async () => {
    const skillLimits = { maxSkills: 2, maxBytes: 2048, maxBytesPerSkill: 1024 };
    const config = parseConfig(
      { categories: { computer: { homeRoot: 'limited-homes', skillLimits } } },
      { env: {}, baseDir: root },
    );
    const context = { config, agent: resolveAgent(config, 'bea') };
    for (const name of ['a-one', 'b-two', 'c-three']) {
      await mkdir(path.join(context.agent.home, 'skills', name), { recursive: true });
      await writeFile(
        path.join(context.agent.home, 'skills', name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: ${'A long description. '.repeat(50)}\n---\n`,
      );
    }
    const built = await buildTextTurnInstructions(context);
    expect(built.skills).toEqual(['a-one', 'b-two']);
    expect(built.skillProblems).toEqual([
      {
        file: 'skills',
        line: 1,
        message: expect.stringMatching(/^1 of its 3 folders were not read: at most 2 Skills/),
      },
    ]);
    const projection = built.instructions.slice(context.config.instructions.length);
    expect(Buffer.byteLength(projection, 'utf8')).toBeLessThanOrEqual(2048 + 2);
    expect(projection).toContain('… [cut: its SKILL.md has the rest]');
  });
});

describe("the computer tools' sandbox", () => {
  // Outside /tmp: the sandbox's private /tmp would hide a folder there whatever the configuration says.
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'switchyard-sandbox-'));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it("hides every other agent's home, the state directory, the database and the configuration file from commands", async () => {
    const secret = `secret-${Date.now()}`;
    await mkdir(path.join(base, 'homes', 'ada'), { recursive: true });
    await mkdir(path.join(base, 'homes', 'bob'), { recursive: true });
    await writeFile(path.join(base, 'homes', 'bob', 'notes.txt'), secret);
    await mkdir(path.join(base, '.switchyard', 'state'), { recursive: true });
    await writeFile(path.join(base, '.switchyard', 'state', 'worker.json'), secret);
    await mkdir(path.join(base, 'pgdata'), { recursive: true });
    await writeFile(path.join(base, 'pgdata', 'PG_VERSION'), secret);
    const source = path.join(base, 'switchyard.config.json');
    await writeFile(source, JSON.stringify({ secret }));
    const config = parseConfig(
      {
        categories: { computer: { homeRoot: 'homes', sandbox: 'required' } },
        database: { dataDir: 'pgdata' },
      },
      { env: {}, baseDir: base, source },
    );
    const tools = buildTextTurnTools({
      config,
      agent: resolveAgent(config, 'ada'),
      services: {},
      todos: { items: [] },
    });
    const runCommand = tools.find((tool) => tool.name === 'run_command');
    expect(runCommand?.description).toContain('There is no network access');
    const result = await runCommand?.execute(
      {
        command: [
          `ls ${base}/homes`,
          `cat ${base}/homes/bob/notes.txt ${base}/.switchyard/state/worker.json ${base}/pgdata/PG_VERSION ${source}`,
          'echo mine > mine.txt && cat mine.txt',
        ].join('; '),
      },
      {
        signal: new AbortController().signal,
        toolCallId: 'call-1',
        idempotencyKey: 'turn_test:1',
        reportProgress: () => undefined,
      },
    );
    const text = String(result?.content);
    expect(result?.details).toMatchObject({ sandboxed: true });
    expect(text.split('\n')[0]).toBe('ada');
    expect(text).not.toContain(secret);
    expect(text).toContain('mine');
    expect(await readFile(path.join(base, 'homes', 'ada', 'mine.txt'), 'utf8')).toBe('mine\n');
  });

  it("gives an agent its own limits and network (agents.<name>.computer); the others keep the category's", async () => {
    await mkdir(path.join(base, 'homes', 'builder'), { recursive: true });
    const config = parseConfig(
      {
        categories: { computer: { homeRoot: 'homes', sandbox: 'required', limits: { maxProcesses: 100 } } },
        agents: { builder: { computer: { limits: { maxProcesses: 64 }, sandbox: { network: 'host' } } } },
      },
      { env: {}, baseDir: base },
    );
    const runCommandOf = (agent: string) =>
      buildTextTurnTools({
        config,
        agent: resolveAgent(config, agent),
        services: {},
        todos: { items: [] },
      }).find((tool) => tool.name === 'run_command');
    const builder = runCommandOf('builder');
    expect(builder?.description).toContain('may run 64 processes and threads at once');
    expect(builder?.description).toContain('The network is available.');
    const ada = runCommandOf('ada');
    expect(ada?.description).toContain('may run 100 processes and threads at once');
    expect(ada?.description).toContain('There is no network access');
    // The limit is the command's own, not only the description's (RLIMIT_NPROC in its namespace).
    const result = await builder?.execute(
      { command: 'ulimit -u' },
      {
        signal: new AbortController().signal,
        toolCallId: 'call-2',
        idempotencyKey: 'turn_test:1',
        reportProgress: () => undefined,
      },
    );
    expect(String(result?.content).split('\n')[0]).toBe('64');
  });
});
