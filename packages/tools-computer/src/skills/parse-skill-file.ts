import {
  type Document,
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  LineCounter,
  type Node,
  parseDocument,
} from 'yaml';
import type { McpServerDefinition, Skill } from './skill';

/** Skill names: lowercase letters, digits and single hyphens, at most 64 characters. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** The longest description, in characters (as the Agent Skills format has it). */
const MAX_DESCRIPTION_CHARACTERS = 1024;
/** YAML aliases (`*name`) a front matter may use; each is also an expansion `toJS` counts against this. */
export const MAX_SKILL_ALIASES = 100;
/** How deep a front matter's mappings and lists may nest (a Skill's deepest field is `mcp.x.env.NAME`). */
export const MAX_SKILL_DEPTH = 16;
/** Problems reported per file: a file of garbage holds one per line, and the first few say what is wrong. */
const MAX_PROBLEMS_PER_FILE = 5;

/** A problem in one SKILL.md, with its 1-based line in the file. */
export interface SkillFileProblem {
  /** The 1-based line. */
  line: number;
  /** What is wrong. */
  message: string;
}

/** What `parseSkillFile` returns: the Skill's fields, or why it cannot be used. */
export type ParsedSkillFile =
  | { ok: true; value: Omit<Skill, 'path' | 'directory'> }
  | { ok: false; problems: SkillFileProblem[] };

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

/** At most `MAX_PROBLEMS_PER_FILE` problems, the last saying how many more there were. */
function capProblems(problems: SkillFileProblem[]): SkillFileProblem[] {
  if (problems.length <= MAX_PROBLEMS_PER_FILE) return problems;
  const kept = problems.slice(0, MAX_PROBLEMS_PER_FILE - 1);
  const rest = problems.length - kept.length;
  const first = problems[kept.length] as SkillFileProblem;
  return [...kept, { line: first.line, message: `${first.message} (and ${rest - 1} more problems)` }];
}

/**
 * Checks the document's tree in one pass, before anything is built from it: nesting no deeper than
 * `MAX_SKILL_DEPTH`, at most `MAX_SKILL_ALIASES` aliases, and no key twice in one mapping (the parser's
 * own duplicate check is off: it compares each key with every earlier one, 5 s for 30,000 keys).
 */
function checkTree(
  document: Document,
  lineOf: (node: Node | null | undefined) => number,
): SkillFileProblem[] {
  const problems: SkillFileProblem[] = [];
  let aliases = 0;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: document.contents, depth: 0 }];
  while (stack.length > 0 && problems.length <= MAX_PROBLEMS_PER_FILE) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (isAlias(node)) {
      aliases += 1;
      continue;
    }
    if (!isCollection(node)) continue;
    if (depth >= MAX_SKILL_DEPTH) {
      problems.push({
        line: lineOf(node),
        message: `the front matter nests deeper than ${MAX_SKILL_DEPTH} levels`,
      });
      continue;
    }
    const keys = new Set<string>();
    for (const item of node.items) {
      if (!isPair(item)) {
        stack.push({ node: item, depth: depth + 1 });
        continue;
      }
      if (isMap(node) && isScalar(item.key)) {
        const key = String(item.key.value);
        if (keys.has(key)) {
          problems.push({ line: lineOf(item.key), message: `${key} is given twice in one mapping` });
        }
        keys.add(key);
      }
      stack.push({ node: item.key, depth: depth + 1 }, { node: item.value, depth: depth + 1 });
    }
  }
  if (aliases > MAX_SKILL_ALIASES) {
    problems.unshift({
      line: 2,
      message: `the front matter uses ${aliases} YAML aliases; at most ${MAX_SKILL_ALIASES} are allowed`,
    });
  }
  return problems;
}

/** Where `text` is only the head of a longer file: its limit and the file's size, in bytes. */
export interface SkillFileHead {
  /** How many bytes of the file were read at most. */
  maxBytes: number;
  /** The whole file's size. */
  fileBytes: number;
}

const formatBytes = (bytes: number) => bytes.toLocaleString('en-US');

/** The front matter (between the `---` lines), or why there is none. */
function frontMatterOf(
  text: string,
  head: SkillFileHead | undefined,
): { yaml: string } | { problem: SkillFileProblem } {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (lines[0]?.trim() !== '---') {
    return { problem: { line: 1, message: 'SKILL.md must start with YAML front matter: a line with ---' } };
  }
  const close = lines.findIndex(
    (line, index) => index > 0 && (line.trim() === '---' || line.trim() === '...'),
  );
  if (close === -1) {
    const message =
      head === undefined
        ? 'the front matter is not closed by a line with ---'
        : `the front matter is not closed within the first ${formatBytes(head.maxBytes)} bytes of this ${formatBytes(head.fileBytes)}-byte file: a front matter may be at most that long (Skill limit maxFrontMatterBytes); it was not parsed`;
    return { problem: { line: 1, message } };
  }
  return { yaml: lines.slice(1, close).join('\n') };
}

/** The fields of a well-formed front matter, checked. */
function checkFields(
  fields: Record<string, unknown>,
  folder: string,
  lineOfKey: (key: string) => number,
  serverLines: ReadonlyMap<string, number>,
): ParsedSkillFile {
  const problems: SkillFileProblem[] = [];
  const { name, description, mcp } = fields;
  if (name === undefined) problems.push({ line: 2, message: 'name is missing' });
  else if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name) || name.length > 64) {
    problems.push({
      line: lineOfKey('name'),
      message: 'name must be lowercase letters, digits and hyphens (at most 64 characters)',
    });
  } else if (name !== folder) {
    problems.push({ line: lineOfKey('name'), message: `name ${name} must equal its folder name ${folder}` });
  }
  if (description === undefined) problems.push({ line: 2, message: 'description is missing' });
  else if (
    typeof description !== 'string' ||
    description.trim() === '' ||
    description.length > MAX_DESCRIPTION_CHARACTERS
  ) {
    problems.push({
      line: lineOfKey('description'),
      message: `description must be a non-empty string of at most ${MAX_DESCRIPTION_CHARACTERS} characters`,
    });
  }
  const servers: Record<string, McpServerDefinition> = {};
  if (mcp !== undefined && mcp !== null) {
    if (typeof mcp !== 'object' || Array.isArray(mcp)) {
      problems.push({ line: lineOfKey('mcp'), message: 'mcp must map server names to server definitions' });
    } else {
      for (const [serverName, raw] of Object.entries(mcp)) {
        try {
          servers[serverName] = parseServer(serverName, raw, serverLines.get(serverName) ?? lineOfKey('mcp'));
        } catch (error) {
          if (!(error instanceof SkillError)) throw error;
          problems.push({ line: error.line, message: error.message });
        }
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems: capProblems(problems) };
  return {
    ok: true,
    value: { name: name as string, description: (description as string).trim(), mcp: servers },
  };
}

/**
 * Parses a SKILL.md: YAML front matter between `---` lines with `name`, `description` and an
 * optional `mcp` mapping of server definitions. `folder` is the skill's folder name; `head`, when
 * `text` is only the first bytes of a longer file (a front matter not closed in them is too long). The caller bounds
 * the text (`loadSkills` reads at most `maxFrontMatterBytes` of the file); the work here is linear in
 * it: the YAML parser without its quadratic duplicate-key check, one pass over the tree that bounds
 * depth and aliases, then the values built with the alias expansion capped.
 *
 * Contract: throws nothing; every problem comes back with its 1-based line in the file (at most five
 * per file, the last counting the rest).
 */
export function parseSkillFile(text: string, folder: string, head?: SkillFileHead): ParsedSkillFile {
  const found = frontMatterOf(text, head);
  if ('problem' in found) return { ok: false, problems: [found.problem] };
  // Front matter starts on the file's second line.
  const offset = 1;
  const lineCounter = new LineCounter();
  const lineOf = (node: Node | null | undefined) =>
    node?.range === undefined || node.range === null
      ? 1 + offset
      : lineCounter.linePos(node.range[0]).line + offset;
  // The parser makes an Error for every problem it finds, one a line of a garbage file, and capturing
  // each one's stack was half its time (122 ms for 16 KiB of `: : :` lines, 50 ms without). Nothing
  // but the parser runs until this function returns, and the limit is restored before it does.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const document = parseDocument(found.yaml, { lineCounter, prettyErrors: false, uniqueKeys: false });
    if (document.errors.length > 0) {
      return {
        ok: false,
        problems: capProblems(
          document.errors.map((error) => ({
            line: lineCounter.linePos(error.pos[0]).line + offset,
            message: `invalid YAML: ${error.message.split('\n')[0]}`,
          })),
        ),
      };
    }
    const treeProblems = checkTree(document, lineOf);
    if (treeProblems.length > 0) return { ok: false, problems: capProblems(treeProblems) };
    const contents = document.contents;
    const lineOfKey = (key: string): number => {
      if (!isMap(contents)) return 1 + offset;
      const pair = contents.items.find((item) => isScalar(item.key) && item.key.value === key);
      return lineOf(pair?.key as Node | undefined);
    };
    const serverLines = new Map<string, number>();
    const mcpNode = isMap(contents) ? contents.get('mcp', true) : undefined;
    if (isMap(mcpNode)) {
      for (const item of mcpNode.items) {
        if (isScalar(item.key)) serverLines.set(String(item.key.value), lineOf(item.key));
      }
    }
    const data = document.toJS({ maxAliasCount: MAX_SKILL_ALIASES }) as unknown;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return {
        ok: false,
        problems: [{ line: 1 + offset, message: 'the front matter must be a YAML mapping' }],
      };
    }
    return checkFields(data as Record<string, unknown>, folder, lineOfKey, serverLines);
  } catch (error) {
    // The parser's own limits (an alias expanding past `maxAliasCount`, ...) end up here: the Skill is
    // left out with the reason, whatever it is, and the others still load.
    return {
      ok: false,
      problems: [
        { line: 1 + offset, message: `the front matter could not be read: ${(error as Error).message}` },
      ],
    };
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
