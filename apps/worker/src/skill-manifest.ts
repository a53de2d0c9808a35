import { loadSkills, type SkillProblem } from '@switchyard/tools-computer';
import type { TurnAgent } from './config/resolve-agent';
import type { WorkerConfig } from './config/worker-config';

/** The Skills of an agent's next text turn, as `switchyard tools` and `GET /v1/tools` show them. */
export interface SkillManifest {
  /** Names of the Skills the turn would project, in folder order. */
  loaded: string[];
  /** Skills left out, each problem with its file, line and reason (folders past `maxSkills` as one). */
  skipped: SkillProblem[];
}

/**
 * The Skills `agent`'s next text turn would read (`loadSkills` within `categories.computer.skillLimits`),
 * or undefined when the turn reads none (no computer category, or `skills` off).
 *
 * Contract: reads only; never throws for a broken Skill (it is in `skipped` with its reason).
 */
export async function readSkillManifest(
  config: WorkerConfig,
  agent: TurnAgent,
): Promise<SkillManifest | undefined> {
  const computer = config.categories.computer;
  if (computer === undefined || !computer.skills) return undefined;
  const { skills, problems } = await loadSkills(agent.home, { limits: computer.skillLimits });
  return { loaded: skills.map((skill) => skill.name), skipped: problems };
}
