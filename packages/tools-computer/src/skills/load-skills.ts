import { opendir } from 'node:fs/promises';
import { type AgentHome, resolveAgentHome, resolveExistingInHome } from '../paths/agent-home';
import { HomePathError } from '../paths/home-path-error';
import { parseSkillFile } from './parse-skill-file';
import { readSkillHead } from './read-skill-head';
import type { LoadedSkills, Skill, SkillProblem } from './skill';
import { resolveSkillLimits, type SkillLimits } from './skill-limits';

/** Options of `loadSkills`. */
export interface LoadSkillsOptions {
  /** Bounds on reading (`maxSkills`, `maxFrontMatterBytes`); the projection's are `projectSkills`'. */
  limits?: Partial<SkillLimits>;
}

/**
 * The first `max` folder names of `directory` in name order, and how many folders it holds. Read as a
 * stream, keeping only those `max`: a home with a million folders costs a walk of the entries, never
 * a list of them all.
 */
async function firstFolders(directory: string, max: number): Promise<{ names: string[]; total: number }> {
  const names: string[] = [];
  let total = 0;
  for await (const entry of await opendir(directory, { bufferSize: 64 })) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    total += 1;
    const last = names[max - 1];
    if (last !== undefined && entry.name >= last) continue;
    let low = 0;
    let high = names.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((names[middle] as string) < entry.name) low = middle + 1;
      else high = middle;
    }
    names.splice(low, 0, entry.name);
    if (names.length > max) names.pop();
  }
  return { names, total };
}

/** One folder's Skill, the problems that left it out, or nothing (a folder without SKILL.md). */
async function loadOne(
  home: AgentHome,
  folder: string,
  limits: SkillLimits,
): Promise<{ skill: Skill } | { problems: SkillProblem[] } | undefined> {
  const file = `skills/${folder}/SKILL.md`;
  try {
    const head = await readSkillHead(home, file, limits.maxFrontMatterBytes);
    if (!head.ok) return { problems: [{ file, line: 1, message: head.message }] };
    const parsed = parseSkillFile(
      head.text,
      folder,
      head.whole ? undefined : { maxBytes: limits.maxFrontMatterBytes, fileBytes: head.fileBytes },
    );
    if (!parsed.ok) return { problems: parsed.problems.map((problem) => ({ file, ...problem })) };
    return { skill: { ...parsed.value, path: file, directory: `skills/${folder}` } };
  } catch (error) {
    // A folder without SKILL.md is not a skill (it may hold shared files).
    if (error instanceof HomePathError && error.code === 'not-found' && error.path === file) return undefined;
    // Anything else (an unreadable file, a directory named SKILL.md, too many open files) leaves this
    // Skill out with the reason: one Skill never fails the turn.
    return { problems: [{ file, line: 1, message: (error as Error).message }] };
  }
}

async function loadFrom(home: AgentHome, limits: SkillLimits): Promise<LoadedSkills> {
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
  const { names, total } = await firstFolders(skillsDirectory, limits.maxSkills);
  for (const folder of names) {
    const loaded = await loadOne(home, folder, limits);
    if (loaded === undefined) continue;
    if ('skill' in loaded) result.skills.push(loaded.skill);
    else result.problems.push(...loaded.problems);
  }
  if (total > names.length) {
    result.problems.push({
      file: 'skills',
      line: 1,
      message: `${(total - names.length).toLocaleString('en-US')} of its ${total.toLocaleString('en-US')} folders were not read: at most ${limits.maxSkills} Skills are read per turn, the first by folder name (Skill limit maxSkills); the first one left out is after ${names.at(-1)}`,
    });
  }
  return result;
}

/**
 * Reads the skills of an agent home: every `skills/<name>/SKILL.md` with YAML front matter
 * (`name`, `description`, optional `mcp` server definitions), within `limits`: the first `maxSkills`
 * folders by name, and of each SKILL.md only its first `maxFrontMatterBytes` (the front matter must
 * close within them). Parsing is linear in what is read (see `parseSkillFile`), so a hostile file costs
 * at most its capped size, and no file holds the event loop for long.
 *
 * Contract: a malformed or unreadable skill is left out and reported in `problems` with its file and
 * line (at most five per file); the others still load. Folders past `maxSkills` are reported in one
 * problem for the `skills` folder. A missing `skills` folder gives no skills and no problems. Throws
 * `ComputerToolsConfigError` (field `home`, or `limits.<name>`) only for a home that cannot be
 * resolved or a bad limit.
 *
 * @example
 * const { skills, problems } = await loadSkills('/srv/agents/ada', { limits: { maxSkills: 50 } });
 * for (const problem of problems) log.warn(`${problem.file}:${problem.line}: ${problem.message}`);
 * await writeMcporterConfig('/srv/agents/ada', skills);
 * const instructions = `${baseInstructions}\n\n${projectSkills(skills)}`;
 */
export async function loadSkills(home: string, options: LoadSkillsOptions = {}): Promise<LoadedSkills> {
  const limits = resolveSkillLimits(options.limits);
  return loadFrom(resolveAgentHome(home), limits);
}
