import { describe, expect, it } from 'vitest';
import { TURN_TITLE_MAX_CHARACTERS, turnTitleOf } from './turn-title';

describe('a turn title', () => {
  it('is the first non-blank line of the prompt, its white space runs as one space', () => {
    expect(turnTitleOf('Summarise the notes\nin notes/todo.md')).toBe('Summarise the notes');
    expect(turnTitleOf('\n \n  Fix   the\tbuild  \r\nthen test')).toBe('Fix the build');
    expect(turnTitleOf(' \n\t ')).toBe('');
  });

  it('is cut to the limit with an ellipsis, never inside a surrogate pair', () => {
    const long = `${'ab'.repeat(100)}\nsecond`;
    const title = turnTitleOf(long);
    expect(Array.from(title)).toHaveLength(TURN_TITLE_MAX_CHARACTERS);
    expect(title).toBe(`${'ab'.repeat(100).slice(0, TURN_TITLE_MAX_CHARACTERS - 1)}…`);
    const emoji = turnTitleOf('😀'.repeat(500));
    expect(emoji).toBe(`${'😀'.repeat(TURN_TITLE_MAX_CHARACTERS - 1)}…`);
  });

  it('reads a bounded head of a huge prompt', () => {
    const huge = `${'x'.repeat(2_000_000)}\nrest`;
    expect(turnTitleOf(huge)).toBe(`${'x'.repeat(TURN_TITLE_MAX_CHARACTERS - 1)}…`);
  });

  it('is at most the limit, on one line, whatever white space the prompt holds', () => {
    for (const prompt of [
      ' a\u00a0\u2028b ',
      `${' x'.repeat(300)}`,
      `\r\n${'y\t'.repeat(200)}`,
      '\u2029\u2029z',
    ]) {
      const title = turnTitleOf(prompt);
      expect(Array.from(title).length).toBeLessThanOrEqual(TURN_TITLE_MAX_CHARACTERS);
      expect(title).not.toMatch(/[\n\r\u2028\u2029]/);
      expect(title).toBe(title.trim());
    }
  });
});
