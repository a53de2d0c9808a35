import { describe, expect, it } from 'vitest';
import { createSkillProblemLog } from './skill-problem-log';

describe('the log of Skills left out', () => {
  it('logs a problem when it appears, not at every turn, and again after it was gone', () => {
    const lines: string[] = [];
    const log = createSkillProblemLog((line) => lines.push(line));
    const broken = { file: 'skills/x/SKILL.md', line: 2, message: 'description is missing' };
    log('ada', [broken]);
    log('ada', [broken]);
    log('bob', [broken]);
    log('ada', []);
    log('ada', [broken]);
    expect(lines).toEqual([
      'switchyard serve: agent ada: skill left out: skills/x/SKILL.md:2: description is missing',
      'switchyard serve: agent bob: skill left out: skills/x/SKILL.md:2: description is missing',
      'switchyard serve: agent ada: skill left out: skills/x/SKILL.md:2: description is missing',
    ]);
  });

  it("shows the control characters of a folder name a model chose, so they do not act on the operator's terminal", () => {
    const lines: string[] = [];
    createSkillProblemLog((line) => lines.push(line))('ada', [
      {
        file: 'skills/\u001b[2Jx/SKILL.md',
        line: 1,
        message: 'name x must equal its folder name \u001b[2Jx',
      },
    ]);
    expect(lines).toEqual([
      'switchyard serve: agent ada: skill left out: skills/␛[2Jx/SKILL.md:1: name x must equal its folder name ␛[2Jx',
    ]);
  });
});
