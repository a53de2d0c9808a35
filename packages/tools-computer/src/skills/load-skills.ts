import { readdir } from 'node:fs/promises';
import { isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import { readTextFile } from '../files/read-text-file';
import { type AgentHome, resolveAgentHome, resolveExistingInHome } from '../paths/agent-home';
import { HomePathError } from '../paths/home-path-error';
import type { LoadedSkills, McpServerDefinition, Skill } from './skill';

/** Skill names: lowercase letters, digits and single hyphens, at most 64 characters. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_SKILL_BYTES = 1024 * 1024;

class SkillError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((entry) => typeof entry === 'string')
  );
}

function parseServer(name: string, raw: unknown, line: number): McpServerDefinition {
  const where = `mcp.${name}`;
  if (!SERVER_NAME_PATTERN.test(name)) {
    throw new SkillError(line, `${where}: a server name uses letters, digits, '_' and '-' only`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SkillError(line, `${where} must be a mapping with command (stdio) or url (HTTP)`);
  }
  const entry = raw as Record<string, unknown>;
  const known = new Set(['description', 'command', 'args', 'env', 'url', 'headers']);
  const unknown = Object.keys(entry).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new SkillError(line, `${where}: unknown field ${unknown.join(', ')}`);
  const server: McpServerDefinition = {};
  if (entry.description !== undefined) {
    if (typeof entry.description !== 'string')
      throw new SkillError(line, `${where}.description must be a string`);
    server.description = entry.description;
  }
  if (entry.command !== undefined) {
    if (typeof entry.command !== 'string' || entry.command === '') {
      throw new SkillError(line, `${where}.command must be a non-empty string`);
    }
    server.command = entry.command;
  }
  if (entry.args !== undefined) {
    if (!Array.isArray(entry.args) || !entry.args.every((arg) => typeof arg === 'string')) {
      throw new SkillError(line, `${where}.args must be a list of strings`);
    }
    server.args = entry.args as string[];
  }
  if (entry.env !== undefined) {
    if (!isStringRecord(entry.env)) throw new SkillError(line, `${where}.env must map names to strings`);
    server.env = entry.env;
  }
  if (entry.url !== undefined) {
    if (typeof entry.url !== 'string' || !URL.canParse(entry.url)) {
      throw new SkillError(line, `${where}.url must be an absolute URL`);
    }
    server.url = entry.url;
  }
  if (entry.headers !== undefined) {
    if (!isStringRecord(entry.headers))
      throw new SkillError(line, `${where}.headers must map names to strings`);
    server.headers = entry.headers;
  }
  if ((server.command === undefined) === (server.url === undefined)) {
    throw new SkillError(line, `${where} needs exactly one of command (stdio) or url (HTTP)`);
  }
  return server;
}

/**
 * Parses a SKILL.md: YAML front matter between `---` lines with `name`, `description` and an
 * optional `mcp` mapping of server definitions. `folder` is the skill's folder name.
 *
 * Contract: throws nothing; every problem comes back with its 1-based line in the file.
 */
export function parseSkillFile(
  text: string,
  folder: string,
):
  | { ok: true; value: Omit<Skill, 'path' | 'directory'> }
  | { ok: false; problems: Array<{ line: number; message: string }> } {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (lines[0]?.trim() !== '---') {
    return {
      ok: false,
      problems: [{ line: 1, message: 'SKILL.md must start with YAML front matter: a line with ---' }],
    };
  }
  const close = lines.findIndex(
    (line, index) => index > 0 && (line.trim() === '---' || line.trim() === '...'),
  );
  if (close === -1) {
    return {
      ok: false,
      problems: [{ line: 1, message: 'the front matter is not closed by a line with ---' }],
    };
  }
  // Front matter starts on the file's second line.
  const offset = 1;
  const lineCounter = new LineCounter();
  const document = parseDocument(lines.slice(1, close).join('\n'), { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => ({
        line: lineCounter.linePos(error.pos[0]).line + offset,
        message: `invalid YAML: ${error.message.split('\n')[0]}`,
      })),
    };
  }
  const lineOfKey = (key: string): number => {
    if (!isMap(document.contents)) return 1 + offset;
    const pair = document.contents.items.find((item) => isScalar(item.key) && item.key.value === key);
    const node = pair?.key as Node | undefined;
    return node?.range === undefined || node.range === null
      ? 1 + offset
      : lineCounter.linePos(node.range[0]).line + offset;
  };
  const problems: Array<{ line: number; message: string }> = [];
  const data = document.toJS() as unknown;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return {
      ok: false,
      problems: [{ line: 1 + offset, message: 'the front matter must be a YAML mapping' }],
    };
  }
  const fields = data as Record<string, unknown>;
  const { name, description, mcp } = fields;
  if (name === undefined) problems.push({ line: 1 + offset, message: 'name is missing' });
  else if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name) || name.length > 64) {
    problems.push({
      line: lineOfKey('name'),
      message: 'name must be lowercase letters, digits and hyphens (at most 64 characters)',
    });
  } else if (name !== folder) {
    problems.push({ line: lineOfKey('name'), message: `name ${name} must equal its folder name ${folder}` });
  }
  if (description === undefined) problems.push({ line: 1 + offset, message: 'description is missing' });
  else if (typeof description !== 'string' || description.trim() === '' || description.length > 1024) {
    problems.push({
      line: lineOfKey('description'),
      message: 'description must be a non-empty string of at most 1024 characters',
    });
  }
  const servers: Record<string, McpServerDefinition> = {};
  if (mcp !== undefined && mcp !== null) {
    if (typeof mcp !== 'object' || Array.isArray(mcp)) {
      problems.push({ line: lineOfKey('mcp'), message: 'mcp must map server names to server definitions' });
    } else {
      const mcpNode = isMap(document.contents) ? document.contents.get('mcp', true) : undefined;
      for (const [serverName, raw] of Object.entries(mcp)) {
        let line = lineOfKey('mcp');
        if (isMap(mcpNode)) {
          const pair = mcpNode.items.find((item) => isScalar(item.key) && item.key.value === serverName);
          const range = (pair?.key as Node | undefined)?.range;
          if (range) line = lineCounter.linePos(range[0]).line + offset;
        }
        try {
          servers[serverName] = parseServer(serverName, raw, line);
        } catch (error) {
          if (!(error instanceof SkillError)) throw error;
          problems.push({ line: error.line, message: error.message });
        }
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: { name: name as string, description: (description as string).trim(), mcp: servers },
  };
}

async function loadFrom(home: AgentHome): Promise<LoadedSkills> {
  const result: LoadedSkills = { skills: [], problems: [] };
  let skillsDirectory: string;
  try {
    skillsDirectory = (await resolveExistingInHome(home, 'skills')).real;
  } catch (error) {
    if (error instanceof HomePathError && error.code === 'not-found') return result;
    if (error instanceof HomePathError) {
      result.problems.push({ file: 'skills', line: 1, message: error.message });
      return result;
    }
    throw error;
  }
  const folders = (await readdir(skillsDirectory, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
  for (const folder of folders) {
    const file = `skills/${folder}/SKILL.md`;
    let text: string;
    try {
      text = (await readTextFile(home, file, MAX_SKILL_BYTES)).text;
    } catch (error) {
      if (error instanceof HomePathError) {
        // A folder without SKILL.md is not a skill (it may hold shared files).
        if (error.code !== 'not-found' || error.path !== file) {
          result.problems.push({ file, line: 1, message: error.message });
        }
        continue;
      }
      throw error;
    }
    const parsed = parseSkillFile(text, folder);
    if (parsed.ok) {
      result.skills.push({ ...parsed.value, path: file, directory: `skills/${folder}` });
    } else {
      for (const problem of parsed.problems) result.problems.push({ file, ...problem });
    }
  }
  return result;
}

/**
 * Reads the skills of an agent home: every `skills/<name>/SKILL.md` with YAML front matter
 * (`name`, `description`, optional `mcp` server definitions).
 *
 * Contract: a malformed skill is left out and reported in `problems` with its file and line; the
 * others still load. A missing `skills` folder gives no skills and no problems. Throws
 * `ComputerToolsConfigError` (field `home`) only when the home itself cannot be resolved.
 *
 * @example
 * const { skills, problems } = await loadSkills('/srv/agents/ada');
 * for (const problem of problems) log.warn(`${problem.file}:${problem.line}: ${problem.message}`);
 * await writeMcporterConfig('/srv/agents/ada', skills);
 * const instructions = `${baseInstructions}\n\n${projectSkills(skills)}`;
 */
export async function loadSkills(home: string): Promise<LoadedSkills> {
  return loadFrom(resolveAgentHome(home));
}
