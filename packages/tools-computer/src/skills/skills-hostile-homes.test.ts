import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureEventLoop } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { useTempHome } from '../__fixtures__/tool-harness';
import { loadSkills } from './load-skills';
import { projectSkills } from './project-skills';
import { DEFAULT_SKILL_LIMITS } from './skill-limits';

// Issue 39's bounds for a home a model may have filled with hostile Skill files: the worker grows by at
// most 100 MB, its event loop is never held more than 250 ms, and the turn still gets its instructions
// with every broken Skill left out and named. Correctness bounds, far above a normal load and far below
// what the unbounded parse took (5.4 s for 30,000 keys, 110 s for 100,000).
const MAX_RSS_GROWTH_BYTES = 100 * 1024 * 1024;
const MAX_LOOP_HELD_MS = 250;

const temp = useTempHome(undefined, 'switchyard-skills-');

/** Writes `skills/<name>/SKILL.md` with this text. */
function writeSkill(name: string, text: string): void {
  const folder = path.join(temp.home, 'skills', name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'SKILL.md'), text);
}

/** `count` keys of front matter, one a line. */
const manyKeys = (count: number) =>
  Array.from({ length: count }, (_, index) => `key${index}: value ${index}`).join('\n');

/** Loads and projects the home's Skills as a turn does, watching the loop and the process's memory. */
async function loadAsATurn() {
  const rssBefore = process.memoryUsage().rss;
  const measured = await measureEventLoop(async () => {
    const loaded = await loadSkills(temp.home);
    return { ...loaded, instructions: projectSkills(loaded.skills) };
  });
  return { ...measured, rssGrowth: process.memoryUsage().rss - rssBefore };
}

describe('Skills written to hurt the worker', () => {
  it('bounds a 1 MiB front matter, 1,000 aliases and parser-hostile front matters within the size cap', async () => {
    writeSkill('a-good', '---\nname: a-good\ndescription: A skill that works.\n---\nDo the work.\n');
    // 1 MiB of front matter (50,000 keys), and the same again with 1,000 aliases.
    const mebibyte = manyKeys(50_000);
    expect(mebibyte.length).toBeGreaterThan(1024 * 1024);
    writeSkill('huge', `---\nname: huge\ndescription: Huge.\n${mebibyte}\n---\n`);
    const aliases = `list: [${Array(1000).fill('*d').join(', ')}]`;
    writeSkill('aliases', `---\nname: aliases\ndescription: &d Aliases.\n${aliases}\n---\n`);
    // Within the 8 KiB cap, the inputs the parser finds hardest: keys (whose duplicate check was
    // quadratic), an error on every line, and deep nesting.
    const room = DEFAULT_SKILL_LIMITS.maxFrontMatterBytes - 100;
    writeSkill('keys', `---\nname: keys\ndescription: Keys.\n${manyKeys(room / 20)}\n---\n`);
    writeSkill('errors', `---\nname: errors\n${': : :\n'.repeat(room / 6)}---\n`);
    writeSkill('nested', `---\nname: nested\ndescription: ${'['.repeat(room)}\n---\n`);

    const { value, maxBusyMs, maxGapMs, maxDelayMs, rssGrowth } = await loadAsATurn();
    expect(value.skills.map((skill) => skill.name)).toEqual(['a-good', 'keys']);
    const reasons = Object.fromEntries(value.problems.map((problem) => [problem.file, problem.message]));
    expect(reasons['skills/huge/SKILL.md']).toMatch(/not closed within the first 8,192 bytes/);
    expect(reasons['skills/aliases/SKILL.md']).toBe(
      'the front matter uses 1000 YAML aliases; at most 100 are allowed',
    );
    expect(reasons['skills/errors/SKILL.md']).toMatch(/^invalid YAML: /);
    expect(reasons['skills/nested/SKILL.md']).toBeDefined();
    expect(value.instructions).toContain('- a-good (instructions: skills/a-good/SKILL.md):');
    expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH_BYTES);
    // The part of a delay the process itself held the loop (Linux schedstat): on a loaded machine most
    // of `maxDelayMs` (monitorEventLoopDelay) can be waiting for a core. Elsewhere the timer gap.
    expect(maxBusyMs ?? maxGapMs, `monitorEventLoopDelay saw ${maxDelayMs} ms`).toBeLessThan(
      MAX_LOOP_HELD_MS,
    );
  }, 60_000);

  it('bounds 5,000 Skills: the first 100 are read, the rest reported in one problem, the text capped', async () => {
    for (let index = 0; index < 5000; index += 1) {
      const name = `skill-${String(index).padStart(4, '0')}`;
      writeSkill(
        name,
        `---\nname: ${name}\ndescription: Task ${index}. ${'Explains at length. '.repeat(50)}\n---\n`,
      );
    }
    const { value, maxBusyMs, maxGapMs, maxDelayMs, rssGrowth } = await loadAsATurn();
    expect(value.skills).toHaveLength(DEFAULT_SKILL_LIMITS.maxSkills);
    expect(value.skills.at(-1)?.name).toBe('skill-0099');
    expect(value.problems).toEqual([
      {
        file: 'skills',
        line: 1,
        message: expect.stringMatching(
          /^4,900 of its 5,000 folders were not read: at most 100 Skills are read per turn/,
        ),
      },
    ]);
    expect(Buffer.byteLength(value.instructions, 'utf8')).toBeLessThanOrEqual(DEFAULT_SKILL_LIMITS.maxBytes);
    expect(value.instructions).toMatch(/\d+ more skills are not listed/);
    expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH_BYTES);
    expect(maxBusyMs ?? maxGapMs, `monitorEventLoopDelay saw ${maxDelayMs} ms`).toBeLessThan(
      MAX_LOOP_HELD_MS,
    );
  }, 120_000);
});
