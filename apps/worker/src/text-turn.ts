import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AnyWorkerAgentTool } from '@switchyard/core';
import { type BrainService, createBrainTools } from '@switchyard/tools-brain';
import {
  createComputerTools,
  loadSkills,
  MCPORTER_CONFIG_PATH,
  projectSkills,
  type SkillProblem,
  writeMcporterConfig,
} from '@switchyard/tools-computer';
import { createMcpTools, type McpServers } from '@switchyard/tools-mcp';
import { createScheduleTools, type ScheduleService } from '@switchyard/tools-schedule';
import { createWebTools } from '@switchyard/tools-web';
import {
  type BackgroundJobService,
  createBackgroundJobTools,
  createWorkflowTools,
  type WorkflowService,
} from '@switchyard/tools-workflow';
import { buildPackageSections, checkPackageToolKeys } from './category-package-sections';
import { commandSandbox, computerLimitsOf } from './config/command-sandbox';
import type { TurnAgent } from './config/resolve-agent';
import type { WorkerConfig } from './config/worker-config';
import { WorkerConfigError } from './config/worker-config-error';
import { withTraceHeaders } from './telemetry/traced-work-services';
import { createTodoTool, type TodoList } from './todo-tool';

/**
 * Services a text turn's tools work through. Each is needed only when its category is enabled;
 * they are opened once per process (or per command) and shared by every turn.
 */
export interface TextTurnServices {
  /** The control plane's schedules (`controlPlane.schedules`): needed by `categories.schedule`. */
  schedules?: ScheduleService;
  /** The MCP servers connected with `connectMcpServers`: needed by `categories.mcp`. */
  mcp?: McpServers;
  /** The control plane's workflows (`controlPlane.workflows`): needed by `categories.workflow`. */
  workflows?: WorkflowService;
  /** The control plane's background jobs (`controlPlane.backgroundJobs`): needed by `categories.jobs`. */
  backgroundJobs?: BackgroundJobService;
  /** The control plane's Brain (`controlPlane.brain`): needed by `categories.brain`. */
  brain?: BrainService;
}

/** Everything an ordinary text turn's tools are built from. */
export interface TextTurnContext {
  /** The worker's configuration: which categories are enabled, and their options. */
  config: WorkerConfig;
  /** The agent the turn runs for, and its home. */
  agent: TurnAgent;
  /** The control plane and MCP services. */
  services: TextTurnServices;
  /** The turn's planning list (the todo tool writes it). */
  todos: TodoList;
  /** The environment the computer tools' allowlist picks from (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The turn's signal, handed to the creators of category packages (default: one that never aborts). */
  signal?: AbortSignal;
}

/** The built-in tool categories of a text turn, in the order their tools stand in the array. */
export type TextTurnCategory =
  | 'todo'
  | 'computer'
  | 'web'
  | 'schedule'
  | 'jobs'
  | 'workflow'
  | 'brain'
  | 'mcp';

/** One category's part of the tool array. */
export interface TextTurnSection {
  /** The category: a built-in one (`TextTurnCategory`), or a category package's name (`@acme/tools-crm`). */
  category: TextTurnCategory | (string & {});
  /** Its tools, in order. */
  tools: AnyWorkerAgentTool[];
}

function required<T>(value: T | undefined, field: string, category: string): T {
  if (value === undefined) {
    throw new TypeError(`${field}: categories.${category} is enabled, so the turn context needs ${field}`);
  }
  return value;
}

/** A category's own field, as the configuration names it (`home` is derived from `homeRoot`). */
function configField(category: TextTurnCategory, field: string): string {
  if (category === 'computer' && field === 'home') return 'categories.computer.homeRoot';
  return `categories.${category}.${field}`;
}

/**
 * A category creator's configuration error (`ComputerToolsConfigError` with `field: 'env[0]'`, ...)
 * as the worker's: the field with its full path in the configuration file, and the file.
 */
function categoryError(error: unknown, category: TextTurnCategory, source: string | undefined): unknown {
  const field = (error as { field?: unknown } | null)?.field;
  if (!(error instanceof Error) || typeof field !== 'string' || field === '') return error;
  // The categories' messages read "<what>: <field>: <problem>"; keep the problem.
  const at = error.message.indexOf(`${field}: `);
  const message = at === -1 ? error.message : error.message.slice(at + field.length + 2);
  return new WorkerConfigError({
    issues: [{ field: configField(category, field), message }],
    ...(source === undefined ? {} : { source }),
    cause: error,
  });
}

/** The web category's tools; their fetches carry the turn's trace context. */
function webTools(web: NonNullable<WorkerConfig['categories']['web']>): AnyWorkerAgentTool[] {
  return createWebTools({ search: web.search, fetch: withTraceHeaders(web.fetch) });
}

/**
 * A category's section: none when the configuration leaves it out (`settings` undefined), else the
 * tools `create` makes from its settings, a creator's configuration error named as the worker's.
 */
function section<S>(
  category: TextTurnCategory,
  settings: S | undefined,
  source: string | undefined,
  create: (settings: S) => AnyWorkerAgentTool[],
): TextTurnSection[] {
  if (settings === undefined) return [];
  try {
    return [{ category, tools: create(settings) }];
  } catch (error) {
    throw categoryError(error, category, source);
  }
}

/**
 * The tool array of an ordinary text turn, by category. This one expression is the whole
 * composition: no registry, no discovery. A category absent from `config.categories` contributes
 * nothing. The category packages the configuration names (`categories.<package>`, loaded with
 * `loadCategoryPackages`) come last, in the file's order, each creator called with the turn. Task turns and background job turns do not come here: they get their own fixed list
 * from `createTaskTurnTools` (issue 8), consumed in `task-turn-consumer.ts`, with the web tools of
 * `buildTaskTurnWebTools` and the read-only Brain tools of `buildTaskTurnBrainTools`.
 *
 * Contract: throws at once (naming the field) when an enabled category's service is missing or a
 * category creator refuses its options (a package's creator: naming the package, see
 * `buildPackageSections`, as when a package's tool has the name of an earlier category's); never
 * mid-turn.
 */
export function buildTextTurnSections(context: TextTurnContext): TextTurnSection[] {
  const { config, agent, services } = context;
  const { computer, web, schedule, jobs, workflow, brain, mcp } = config.categories;
  const source = config.source;
  const sections: TextTurnSection[] = [
    { category: 'todo', tools: [createTodoTool({ list: context.todos })] },
    ...section('computer', computer, source, (computer) =>
      createComputerTools({
        home: agent.home,
        env: computer.env,
        limits: computerLimitsOf(config, agent.id),
        sandbox: commandSandbox(config, agent.id),
        ...(context.environment === undefined ? {} : { sourceEnv: context.environment }),
      }),
    ),
    ...section('web', web, source, webTools),
    ...section('schedule', schedule, source, (schedule) =>
      createScheduleTools({
        scheduleService: required(services.schedules, 'services.schedules', 'schedule'),
        agentId: agent.id,
        defaultTimeZone: schedule.defaultTimeZone,
      }),
    ),
    ...section('jobs', jobs, source, () =>
      createBackgroundJobTools({
        backgroundJobService: required(services.backgroundJobs, 'services.backgroundJobs', 'jobs'),
        agentId: agent.id,
      }),
    ),
    ...section('workflow', workflow, source, () =>
      createWorkflowTools({
        workflowService: required(services.workflows, 'services.workflows', 'workflow'),
        agentId: agent.id,
      }),
    ),
    ...section('brain', brain, source, () =>
      createBrainTools({
        brain: required(services.brain, 'services.brain', 'brain'),
        agentId: agent.id,
        mode: 'read-write',
      }),
    ),
    ...section('mcp', mcp, source, () =>
      createMcpTools({ servers: required(services.mcp, 'services.mcp', 'mcp') }),
    ),
    ...buildPackageSections({
      config,
      agent,
      services,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    }),
  ];
  checkPackageToolKeys(sections, config);
  return sections;
}

// The manifest and the start-up check need the tools' definitions, not a database: the control
// plane's tools are built over services that are never called.
const notRun = () => Promise.reject(new Error('these tools were built for inspection and do not run'));
const DEFINITIONS_ONLY: Required<Omit<TextTurnServices, 'mcp'>> = {
  schedules: { createSchedule: notRun, listSchedules: notRun, cancelSchedule: notRun },
  workflows: { startWorkflow: notRun, showWorkflow: notRun, listWorkflows: notRun, cancelWorkflow: notRun },
  backgroundJobs: { startBackgroundJob: notRun, checkBackgroundJob: notRun, cancelBackgroundJob: notRun },
  brain: { remember: notRun, recall: notRun, getPage: notRun, forget: notRun },
};

/**
 * The sections a text turn of `agent` would have, built over services that are never called (no
 * database is opened): what `switchyard tools` prints. The MCP category is built only when `mcp`
 * (connected servers) is given.
 *
 * Contract: the agent's home must exist; throws as `buildTextTurnSections` (a `WorkerConfigError`
 * naming the field when a category refuses its options).
 */
export function inspectTextTurnSections(
  context: Pick<TextTurnContext, 'config' | 'agent'> & { mcp?: McpServers },
): TextTurnSection[] {
  const { config, mcp } = context;
  const categories =
    mcp === undefined && config.categories.mcp !== undefined
      ? { ...config.categories, mcp: undefined }
      : config.categories;
  return buildTextTurnSections({
    config: { ...config, categories },
    agent: context.agent,
    services: { ...DEFINITIONS_ONLY, ...(mcp === undefined ? {} : { mcp }) },
    todos: { items: [] },
  });
}

/**
 * Checks at start-up that every enabled category accepts its options for `agent` (whose home must
 * exist), so that a bad configuration fails before the first turn, naming the field.
 *
 * Contract: throws `WorkerConfigError` (`categories.computer.env[0]: ...`, with the file); for a
 * category package, naming the package when its creator throws, returns tools that break the tool
 * contract, or a tool with the name of an earlier category's.
 */
export function checkTextTurnComposition(context: Pick<TextTurnContext, 'config' | 'agent'>): void {
  inspectTextTurnSections(context);
}

/** Creates the agent's home when it is missing (every command and every daemon turn does, before the turn). */
export async function prepareAgentHome(agent: TurnAgent): Promise<void> {
  await mkdir(agent.home, { recursive: true });
}

/**
 * The web tools a workflow task or background job turn gets: those of `categories.web` (built
 * afresh per turn), or undefined when the category is off.
 */
export function buildTaskTurnWebTools(config: WorkerConfig): (() => AnyWorkerAgentTool[]) | undefined {
  const { web } = config.categories;
  if (web === undefined) return undefined;
  // Checked once here, so a refused option fails at start-up, not in a task turn.
  section('web', web, config.source, webTools);
  return () => webTools(web);
}

/**
 * The read-only Brain tools a workflow task or background job turn of an agent gets (`recall` and
 * `get_page`, built afresh per turn), or undefined when `categories.brain` is off. Text turns get the
 * read-write set from `buildTextTurnSections`.
 */
export function buildTaskTurnBrainTools(
  config: WorkerConfig,
  brain: BrainService,
): ((agentId: string) => AnyWorkerAgentTool[]) | undefined {
  if (config.categories.brain === undefined) return undefined;
  return (agentId) => createBrainTools({ brain, agentId, mode: 'read-only' });
}

/**
 * The tool array of an ordinary text turn, in order: the todo tool, then the computer, web,
 * schedule, background job, workflow, Brain and MCP tools of the enabled categories.
 *
 * Contract: as `buildTextTurnSections`.
 *
 * @example
 * const config = await loadConfig();
 * const tools = buildTextTurnTools({
 *   config,
 *   agent: resolveAgent(config, 'ada'),
 *   services: { schedules: controlPlane.schedules, mcp },
 *   todos: { items: [] },
 * });
 * const run = runAgentLoop({ model, tools, instructions, input, signal });
 */
export function buildTextTurnTools(context: TextTurnContext): AnyWorkerAgentTool[] {
  return buildTextTurnSections(context).flatMap((section) => section.tools);
}

/** What `buildTextTurnInstructions` returns. */
export interface TextTurnInstructions {
  /** The base instructions plus the active Skills' projection. */
  instructions: string;
  /** Names of the Skills projected. */
  skills: string[];
  /** Malformed skill files, left out (show them to the operator). */
  skillProblems: SkillProblem[];
}

/**
 * The instructions of a text turn: the configured base instructions, and, when the computer
 * category is enabled with `skills` on, the agent home's active Skills (`loadSkills` +
 * `projectSkills`), read afresh every turn so a skill added between turns is seen on the next, within
 * `categories.computer.skillLimits` (how many Skills and how much of each are read, and how many bytes
 * they add): a Skill file may have been written by a model.
 *
 * Contract: a malformed skill is left out and reported in `skillProblems`, never thrown.
 */
export async function buildTextTurnInstructions(
  context: Pick<TextTurnContext, 'config' | 'agent'>,
): Promise<TextTurnInstructions> {
  const { config, agent } = context;
  const base = config.instructions;
  const computer = config.categories.computer;
  if (computer === undefined || !computer.skills) {
    return { instructions: base, skills: [], skillProblems: [] };
  }
  const { skills, problems } = await loadSkills(agent.home, { limits: computer.skillLimits });
  const projection = projectSkills(skills, { limits: computer.skillLimits });
  const skillProblems = [...problems];
  // An MCP-backed Skill's instructions say `mcporter call <server>.<tool>`: the home's mcporter
  // configuration is written from the Skills projected, so that line works through run_command. It
  // is rewritten also when it exists and no Skill has a server any more: left as it was, it would
  // keep a removed Skill's server callable.
  const configured = await lstat(path.join(agent.home, MCPORTER_CONFIG_PATH)).then(
    () => true,
    () => false,
  );
  if (configured || skills.some((skill) => Object.keys(skill.mcp).length > 0)) {
    try {
      skillProblems.push(...(await writeMcporterConfig(agent.home, skills)).problems);
    } catch (error) {
      skillProblems.push({
        file: MCPORTER_CONFIG_PATH,
        line: 1,
        message: `the MCP servers of the Skills could not be written: ${(error as Error).message}`,
      });
    }
  }
  return {
    instructions: projection === '' ? base : `${base}\n\n${projection}`,
    skills: skills.map((skill) => skill.name),
    skillProblems,
  };
}
