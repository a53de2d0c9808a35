/** An MCP server a skill needs, written into the home's mcporter configuration. */
export interface McpServerDefinition {
  /** What the server does (shown by `mcporter list`). */
  description?: string;
  /** Stdio transport: the program to start. A `./` or `../` path is relative to the skill's folder. */
  command?: string;
  /** Stdio transport: its arguments; `./` and `../` paths are relative to the skill's folder. */
  args?: string[];
  /** Stdio transport: extra environment variables for the server (visible in the home's config). */
  env?: Record<string, string>;
  /** HTTP transport: the server's URL. */
  url?: string;
  /** HTTP transport: request headers. */
  headers?: Record<string, string>;
}

/** A skill found in `<home>/skills/<name>/SKILL.md`. */
export interface Skill {
  /** The skill's name (equals its folder name). */
  name: string;
  /** When to use it: what a turn's instructions show. */
  description: string;
  /** Its SKILL.md, relative to the home: the full instructions the model reads with `read_file`. */
  path: string;
  /** Its folder, relative to the home. */
  directory: string;
  /** MCP servers it needs, by server name (empty when none). */
  mcp: Record<string, McpServerDefinition>;
}

/** A skill file that could not be used, with where and why. */
export interface SkillProblem {
  /** The file, relative to the home. */
  file: string;
  /** The 1-based line the problem is on. */
  line: number;
  /** What is wrong. */
  message: string;
}

/** What `loadSkills` returns: the usable skills and the problems of the others. */
export interface LoadedSkills {
  /** Skills that loaded, in folder-name order. */
  skills: Skill[];
  /** One entry per problem found in a malformed skill (which is left out of `skills`). */
  problems: SkillProblem[];
}
