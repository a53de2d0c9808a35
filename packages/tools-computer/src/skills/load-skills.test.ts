import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALC_SKILL_MCP_LINES } from '../__fixtures__/calc-skill';
import { useTempHome } from '../__fixtures__/tool-harness';
import { loadSkills } from './load-skills';

const temp = useTempHome();

describe('loading skills', () => {
  it('loads valid skills with their MCP servers, in folder order', async () => {
    temp.write(
      'skills/pdf-forms/SKILL.md',
      '---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\n# Filling forms\n...',
    );
    temp.write(
      'skills/calc/SKILL.md',
      [
        '---',
        'name: calc',
        'description: >',
        '  Do arithmetic with the calculator server.',
        ...CALC_SKILL_MCP_LINES,
        '---',
        'Use `mcporter call calc.add a=1 b=2`.',
      ].join('\n'),
    );
    const { skills, problems } = await loadSkills(temp.home);
    expect(problems).toEqual([]);
    expect(skills).toEqual([
      {
        name: 'calc',
        description: 'Do arithmetic with the calculator server.',
        path: 'skills/calc/SKILL.md',
        directory: 'skills/calc',
        mcp: { calc: { command: 'node', args: ['./server.mjs'], env: { CALC_MODE: 'exact' } } },
      },
      {
        name: 'pdf-forms',
        description: 'Fill PDF forms.',
        path: 'skills/pdf-forms/SKILL.md',
        directory: 'skills/pdf-forms',
        mcp: {},
      },
    ]);
  });

  it('reports malformed skills with file and line without failing the others', async () => {
    temp.write('skills/good/SKILL.md', '---\nname: good\ndescription: Works.\n---\n');
    temp.write('skills/bad-yaml/SKILL.md', '---\nname: bad-yaml\ndescription: [unclosed\n---\n');
    temp.write('skills/no-front/SKILL.md', '# Just markdown\n');
    temp.write('skills/wrong-name/SKILL.md', '---\ndescription: Named wrongly.\nname: other\n---\n');
    temp.write(
      'skills/bad-mcp/SKILL.md',
      '---\nname: bad-mcp\ndescription: x\nmcp:\n  ok:\n    command: node\n  broken:\n    args: [x]\n---\n',
    );
    temp.write('skills/missing/SKILL.md', '---\nname: missing\n---\n');
    temp.write('skills/shared/helper.sh', 'echo not a skill');
    const { skills, problems } = await loadSkills(temp.home);
    expect(skills.map((skill) => skill.name)).toEqual(['good']);
    expect(problems).toEqual([
      {
        file: 'skills/bad-mcp/SKILL.md',
        line: 7,
        message: 'mcp.broken needs exactly one of command (stdio) or url (HTTP)',
      },
      { file: 'skills/bad-yaml/SKILL.md', line: 3, message: expect.stringMatching(/^invalid YAML: /) },
      { file: 'skills/missing/SKILL.md', line: 2, message: 'description is missing' },
      {
        file: 'skills/no-front/SKILL.md',
        line: 1,
        message: 'SKILL.md must start with YAML front matter: a line with ---',
      },
      {
        file: 'skills/wrong-name/SKILL.md',
        line: 3,
        message: 'name other must equal its folder name wrong-name',
      },
    ]);
  });

  it('gives nothing for a home without skills, and refuses a skills folder that leads outside', async () => {
    expect(await loadSkills(temp.home)).toEqual({ skills: [], problems: [] });
    temp.write('../outside/evil/SKILL.md', '---\nname: evil\ndescription: outside\n---\n');
    symlinkSync(temp.outside, path.join(temp.home, 'skills'));
    const { skills, problems } = await loadSkills(temp.home);
    expect(skills).toEqual([]);
    expect(problems[0]?.message).toMatch(/outside the agent home/);
  });

  it('skips a folder without SKILL.md but reports a SKILL.md it cannot read', async () => {
    temp.write('skills/shared/notes.txt', 'shared files, no skill here\n');
    temp.write('skills/good/SKILL.md', '---\nname: good\ndescription: Works.\n---\n');
    // A directory named SKILL.md exists but is not a readable file: a problem, not "no skill".
    temp.write('skills/odd/SKILL.md/inner.txt', 'x\n');
    const { skills, problems } = await loadSkills(temp.home);
    expect(skills.map((skill) => skill.name)).toEqual(['good']);
    expect(problems).toEqual([
      { file: 'skills/odd/SKILL.md', line: 1, message: expect.stringMatching(/directory/) },
    ]);
  });
});
