import type { SkillProblem } from '@switchyard/tools-computer';
import { visibleControls } from '../progress/visible-controls';

/** Reports an agent's Skill problems as one turn's instructions found them. */
export type SkillProblemLog = (agentId: string, problems: readonly SkillProblem[]) => void;

/**
 * The daemon's log of Skills left out of turns: every turn reads its agent's Skills again, so a
 * problem is logged when it first appears (and again after it was gone for a turn), not at every turn.
 * Lines carry the agent, the file and line, and the reason, with control characters made visible: a
 * Skill's folder name and contents are a model's.
 *
 * @example
 * const logSkillProblems = createSkillProblemLog(print);
 * const built = await buildTextTurnInstructions({ config, agent });
 * logSkillProblems(agent.id, built.skillProblems);
 */
export function createSkillProblemLog(print: (line: string) => void): SkillProblemLog {
  // What each agent's last turn found: the daemon serves a fixed list of agents.
  const lastSeen = new Map<string, ReadonlySet<string>>();
  return (agentId, problems) => {
    const seen = new Set<string>();
    for (const problem of problems) {
      const line = `${problem.file}:${problem.line}: ${problem.message}`;
      if (seen.has(line)) continue;
      seen.add(line);
      if (lastSeen.get(agentId)?.has(line) === true) continue;
      print(visibleControls(`switchyard serve: agent ${agentId}: skill left out: ${line}`));
    }
    lastSeen.set(agentId, seen);
  };
}
