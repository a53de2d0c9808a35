import type { AnyWorkerAgentTool } from '@switchyard/core';
import {
  createComputerTools,
  loadSkills,
  projectSkills,
  type SkillProblem,
} from '@switchyard/tools-computer';
import { createMcpTools, type McpServers } from '@switchyard/tools-mcp';
import { createScheduleTools, type ScheduleService } from '@switchyard/tools-schedule';
import { createWebTools } from '@switchyard/tools-web';
import { createWorkflowTools, type WorkflowService } from '@switchyard/tools-workflow';
import type { TurnAgent } from './config/resolve-agent';
import type { WorkerConfig } from './config/worker-config';
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
  /** The turn's signal: aborting it ends the turn (the loop hands it to every call). */
  signal: AbortSignal;
  /** The environment the computer tools' allowlist picks from (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
}

/** The tool categories of a text turn, in the order their tools stand in the array. */
export type TextTurnCategory = 'todo' | 'computer' | 'web' | 'schedule' | 'jobs' | 'workflow' | 'mcp';

/** One category's part of the tool array. */
export interface TextTurnSection {
  /** The category. */
  category: TextTurnCategory;
  /** Its tools, in order. */
  tools: AnyWorkerAgentTool[];
}

function required<T>(value: T | undefined, field: string, category: string): T {
  if (value === undefined) {
    throw new TypeError(`${field}: categories.${category} is enabled, so the turn context needs ${field}`);
  }
  return value;
}

/**
 * The tool array of an ordinary text turn, by category. This one expression is the whole
 * composition: no registry, no discovery. A category absent from `config.categories` contributes
 * nothing. Task turns and background job turns do not come here: they get their own fixed list
 * from `createTaskTurnTools` (issue 8), consumed in `task-turn-consumer.ts`.
 *
 * Contract: throws at once (naming the field) when an enabled category's service is missing or a
 * category creator refuses its options; never mid-turn.
 */
export function buildTextTurnSections(context: TextTurnContext): TextTurnSection[] {
  const { config, agent, services } = context;
  const { computer, web, schedule, workflow, mcp } = config.categories;
  return [
    { category: 'todo', tools: [createTodoTool({ list: context.todos })] },
    ...(computer === undefined
      ? []
      : [
          {
            category: 'computer' as const,
            tools: createComputerTools({
              home: agent.home,
              env: computer.env,
              limits: computer.limits,
              ...(context.environment === undefined ? {} : { sourceEnv: context.environment }),
            }),
          },
        ]),
    ...(web === undefined
      ? []
      : [{ category: 'web' as const, tools: createWebTools({ search: web.search, fetch: web.fetch }) }]),
    ...(schedule === undefined
      ? []
      : [
          {
            category: 'schedule' as const,
            tools: createScheduleTools({
              scheduleService: required(services.schedules, 'services.schedules', 'schedule'),
              agentId: agent.id,
              defaultTimeZone: schedule.defaultTimeZone,
            }),
          },
        ]),
    // Background job tools (`createBackgroundJobTools`, issue 8) take their place here, as 'jobs',
    // once the category ships them.
    ...(workflow === undefined
      ? []
      : [
          {
            category: 'workflow' as const,
            tools: createWorkflowTools({
              workflowService: required(services.workflows, 'services.workflows', 'workflow'),
              agentId: agent.id,
            }),
          },
        ]),
    ...(mcp === undefined
      ? []
      : [
          {
            category: 'mcp' as const,
            tools: createMcpTools({ servers: required(services.mcp, 'services.mcp', 'mcp') }),
          },
        ]),
  ];
}

/**
 * The tool array of an ordinary text turn, in order: the todo tool, then the computer, web,
 * schedule, background job, workflow and MCP tools of the enabled categories.
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
 *   signal,
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
 * `projectSkills`), read afresh every turn so a skill added between turns is seen on the next.
 *
 * Contract: a malformed skill is left out and reported in `skillProblems`, never thrown.
 */
export async function buildTextTurnInstructions(
  context: Pick<TextTurnContext, 'config' | 'agent'>,
): Promise<TextTurnInstructions> {
  const { config, agent } = context;
  const base = config.instructions;
  if (config.categories.computer === undefined || !config.categories.computer.skills) {
    return { instructions: base, skills: [], skillProblems: [] };
  }
  const { skills, problems } = await loadSkills(agent.home);
  const projection = projectSkills(skills);
  return {
    instructions: projection === '' ? base : `${base}\n\n${projection}`,
    skills: skills.map((skill) => skill.name),
    skillProblems: problems,
  };
}
