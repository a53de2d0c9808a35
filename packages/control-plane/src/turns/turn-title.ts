/** The most characters (code points) of a turn's title, its ellipsis included. */
export const TURN_TITLE_MAX_CHARACTERS = 120;

/**
 * A turn's title: the first non-blank line of its prompt, its runs of white space as one space, cut
 * to `TURN_TITLE_MAX_CHARACTERS` code points with `…` at the end when longer.
 *
 * Contract: linear in the title's length whatever the prompt's size (only the prompt's first few
 * kilobytes past its leading blank lines are read); never cuts a surrogate pair; an all-blank prompt
 * gives `''`.
 *
 * @example
 * turnTitleOf('Summarise the notes\nin notes/todo.md'); // 'Summarise the notes'
 */
export function turnTitleOf(prompt: string): string {
  const start = prompt.search(/\S/);
  if (start === -1) return '';
  // Enough for the longest title even if every character were a surrogate pair or white space run.
  const head = prompt.slice(start, start + TURN_TITLE_MAX_CHARACTERS * 8);
  const end = head.indexOf('\n');
  const line = (end === -1 ? head : head.slice(0, end)).replace(/\s+/g, ' ').trim();
  const characters = Array.from(line);
  if (characters.length <= TURN_TITLE_MAX_CHARACTERS) return line;
  return `${characters.slice(0, TURN_TITLE_MAX_CHARACTERS - 1).join('')}…`;
}
