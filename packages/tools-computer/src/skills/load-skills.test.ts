import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALC_SKILL_MCP_LINES } from '../__fixtures__/calc-skill';
import { useTempHome } from '../__fixtures__/tool-harness';
import { ComputerToolsConfigError } from '../errors/computer-tools-config-error';
import { loadSkills } from './load-skills';

const temp = useTempHome();

/**
 * Writes a valid skill `good` beside those the test wrote, loads the home's skills and checks that
 * `good` alone loaded (a bad skill never fails the others); the problems reported.
 */
async function problemsBesideGoodSkill() {
  temp.write('skills/good/SKILL.md', '---\nname: good\ndescription: Works.\n---\n');
  const { skills, problems } = await loadSkills(temp.home);
  expect(skills.map((skill) => skill.name)).toEqual(['good']);
  return problems;
}

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
    temp.write('skills/bad-yaml/SKILL.md', '---\nname: bad-yaml\ndescription: [unclosed\n---\n');
    temp.write('skills/no-front/SKILL.md', '# Just markdown\n');
    temp.write('skills/wrong-name/SKILL.md', '---\ndescription: Named wrongly.\nname: other\n---\n');
    temp.write(
      'skills/bad-mcp/SKILL.md',
      '---\nname: bad-mcp\ndescription: x\nmcp:\n  ok:\n    command: node\n  broken:\n    args: [x]\n---\n',
    );
    temp.write('skills/missing/SKILL.md', '---\nname: missing\n---\n');
    temp.write('skills/shared/helper.sh', 'echo not a skill');
    const problems = await problemsBesideGoodSkill();
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
    // A directory named SKILL.md exists but is not a readable file: a problem, not "no skill".
    temp.write('skills/odd/SKILL.md/inner.txt', 'x\n');
    const problems = await problemsBesideGoodSkill();
    expect(problems).toEqual([
      { file: 'skills/odd/SKILL.md', line: 1, message: expect.stringMatching(/directory/) },
    ]);
  });

  it('leaves out a skill with more than 100 YAML aliases, with the reason, and loads the others', async () => {
    const aliases = `list: [${Array(1000).fill('*a').join(', ')}]`;
    temp.write('skills/aliases/SKILL.md', `---\nname: aliases\ndescription: &a Many.\n${aliases}\n---\n`);
    // Few aliases, each expanding the one before nine times: the values would be 9^5 strings.
    const laughs = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...['b', 'c', 'd', 'e', 'f'].map(
        (name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcde'[index]}`).join(', ')}]`,
      ),
    ].join('\n');
    temp.write('skills/laughs/SKILL.md', `---\nname: laughs\ndescription: Laughs.\n${laughs}\n---\n`);
    const problems = await problemsBesideGoodSkill();
    expect(problems).toEqual([
      {
        file: 'skills/aliases/SKILL.md',
        line: 2,
        message: 'the front matter uses 1000 YAML aliases; at most 100 are allowed',
      },
      {
        file: 'skills/laughs/SKILL.md',
        line: 2,
        message: expect.stringMatching(/^the front matter could not be read: .*alias/i),
      },
    ]);
  });

  it('reads only the head of a SKILL.md: a front matter longer than maxFrontMatterBytes is refused unparsed', async () => {
    const keys = Array.from({ length: 100_000 }, (_, index) => `key${index}: value`).join('\n');
    temp.write('skills/huge/SKILL.md', `---\nname: huge\ndescription: Huge.\n${keys}\n---\n`);
    // A long SKILL.md with a short front matter loads: its instructions are the model's to read.
    temp.write(
      'skills/long/SKILL.md',
      `---\nname: long\ndescription: Long instructions.\n---\n${'Step.\n'.repeat(400_000)}`,
    );
    const { skills, problems } = await loadSkills(temp.home);
    expect(skills.map((skill) => skill.name)).toEqual(['long']);
    expect(problems).toEqual([
      {
        file: 'skills/huge/SKILL.md',
        line: 1,
        message: expect.stringMatching(
          /^the front matter is not closed within the first 8,192 bytes of this [\d,]+-byte file: .*maxFrontMatterBytes/,
        ),
      },
    ]);
    const small = await loadSkills(temp.home, { limits: { maxFrontMatterBytes: 20 } });
    expect(small.problems.map((problem) => problem.file)).toEqual([
      'skills/huge/SKILL.md',
      'skills/long/SKILL.md',
    ]);
  });

  it('reports a key given twice, nesting deeper than 16 levels, and a file that is not UTF-8 text', async () => {
    temp.write('skills/twice/SKILL.md', '---\nname: twice\ndescription: One.\ndescription: Two.\n---\n');
    temp.write(
      'skills/deep/SKILL.md',
      `---\nname: deep\ndescription: Deep.\nnested: ${'['.repeat(40)}${']'.repeat(40)}\n---\n`,
    );
    temp.write('skills/binary/SKILL.md', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]));
    const { skills, problems } = await loadSkills(temp.home);
    expect(skills).toEqual([]);
    expect(problems).toEqual([
      { file: 'skills/binary/SKILL.md', line: 1, message: 'SKILL.md is not UTF-8 text' },
      { file: 'skills/deep/SKILL.md', line: 4, message: 'the front matter nests deeper than 16 levels' },
      { file: 'skills/twice/SKILL.md', line: 4, message: 'description is given twice in one mapping' },
    ]);
  });

  it('reports at most five problems a file, the last counting the rest', async () => {
    const servers = Array.from({ length: 12 }, (_, index) => `  s${index}: {}`).join('\n');
    temp.write('skills/many/SKILL.md', `---\nname: many\ndescription: Many.\nmcp:\n${servers}\n---\n`);
    const { problems } = await loadSkills(temp.home);
    expect(problems).toHaveLength(5);
    expect(problems[4]?.message).toBe(
      'mcp.s4 needs exactly one of command (stdio) or url (HTTP) (and 7 more problems)',
    );
  });

  it('reads the first maxSkills folders by name and reports the rest in one problem', async () => {
    for (const name of ['d', 'b', 'e', 'a', 'c']) {
      temp.write(`skills/${name}/SKILL.md`, `---\nname: ${name}\ndescription: Skill ${name}.\n---\n`);
    }
    const { skills, problems } = await loadSkills(temp.home, { limits: { maxSkills: 3 } });
    expect(skills.map((skill) => skill.name)).toEqual(['a', 'b', 'c']);
    expect(problems).toEqual([
      {
        file: 'skills',
        line: 1,
        message:
          '2 of its 5 folders were not read: at most 3 Skills are read per turn, the first by folder name (Skill limit maxSkills); the first one left out is after c',
      },
    ]);
  });

  it('refuses a bad limit, naming it', async () => {
    const error = await loadSkills(temp.home, { limits: { maxSkills: 0 } }).catch(
      (caught: unknown) => caught,
    );
    expect(ComputerToolsConfigError.isInstance(error)).toBe(true);
    expect((error as ComputerToolsConfigError).field).toBe('limits.maxSkills');
  });
});
