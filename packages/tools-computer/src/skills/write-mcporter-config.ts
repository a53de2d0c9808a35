import path from 'node:path';
import { resolveAgentHome } from '../paths/agent-home';
import { writeFileInHome } from '../paths/write-file-in-home';
import type { McpServerDefinition, Skill, SkillProblem } from './skill';

/** Where the mcporter configuration lives, relative to the home (mcporter's default location). */
export const MCPORTER_CONFIG_PATH = 'config/mcporter.json';

/** What `writeMcporterConfig` wrote. */
export interface McporterConfigResult {
  /** The configuration file, relative to the home. */
  path: string;
  /** Server names written, in order. */
  servers: string[];
  /** Servers left out because an earlier skill already defined the name. */
  problems: SkillProblem[];
}

const isRelativePath = (value: string) => value.startsWith('./') || value.startsWith('../');

/** mcporter starts stdio servers in the config file's folder: re-anchor skill-relative paths there. */
function anchor(value: string, skill: Skill): string {
  if (!isRelativePath(value)) return value;
  const fromHome = path.posix.join(skill.directory, value);
  return path.posix.relative(path.posix.dirname(MCPORTER_CONFIG_PATH), fromHome);
}

function toMcporterEntry(server: McpServerDefinition, skill: Skill): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    description: server.description ?? `MCP server of the ${skill.name} skill`,
  };
  if (server.url !== undefined) {
    entry.url = server.url;
    if (server.headers !== undefined) entry.headers = server.headers;
    return entry;
  }
  entry.command = anchor(server.command ?? '', skill);
  entry.args = (server.args ?? []).map((arg) => anchor(arg, skill));
  entry.env = server.env ?? {};
  return entry;
}

/**
 * Writes the MCP servers of the given skills into `<home>/config/mcporter.json`, with
 * `"imports": []` so mcporter reads nothing else. A command run in the home then reaches them with
 * `mcporter call <server>.<tool> key=value`. The file is generated: it is rewritten whole on each call
 * (atomically, confined to the home), so it always matches the active skills.
 *
 * Contract: a server name defined by two skills keeps the first and reports the second in
 * `problems`. Throws `ComputerToolsConfigError` (field `home`) for a bad home and the confinement
 * error when `config/` leads outside the home.
 *
 * @example
 * const { skills } = await loadSkills(home);
 * await writeMcporterConfig(home, skills);
 * // run_command: mcporter call calc.add a=2 b=3
 */
export async function writeMcporterConfig(
  home: string,
  skills: readonly Skill[],
): Promise<McporterConfigResult> {
  const agentHome = resolveAgentHome(home);
  const mcpServers: Record<string, Record<string, unknown>> = {};
  const owners = new Map<string, string>();
  const problems: SkillProblem[] = [];
  for (const skill of skills) {
    for (const [name, server] of Object.entries(skill.mcp)) {
      const owner = owners.get(name);
      if (owner !== undefined) {
        problems.push({
          file: skill.path,
          line: 1,
          message: `MCP server ${name} is already defined by the ${owner} skill; this definition was left out`,
        });
        continue;
      }
      owners.set(name, skill.name);
      mcpServers[name] = toMcporterEntry(server, skill);
    }
  }
  const written = await writeFileInHome(
    agentHome,
    MCPORTER_CONFIG_PATH,
    `${JSON.stringify({ mcpServers, imports: [] }, null, 2)}\n`,
  );
  return { path: written.relative, servers: Object.keys(mcpServers), problems };
}
