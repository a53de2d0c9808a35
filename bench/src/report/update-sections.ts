import { SUITE_NAMES, type SuiteName } from './suite-names';

// How each section began before sections were marked, so a partial run can replace it in a file
// written by an older full run.
const SECTION_HEADINGS: Record<SuiteName, string> = {
  'loop-overhead': '## Agent turn overhead',
  'parallel-batch': '## Parallel batch',
  'schema-bytes': '## Tool-schema bytes per request',
  'argument-ladder': '## Argument ladder',
  'tool-stall': '## Tool stall',
  'strict-coverage': '## Strict coverage',
  'busy-daemon': '## Busy daemon',
  'growing-fleet': '## Growing fleet',
  'request-burst': '## Request burst',
  'turns-in-flight': '## Turns in flight',
  'stalled-readers': '## Stalled readers',
  'streamed-text': '## Streamed text',
  'test-suite': '## Test suite',
  'brain-recall': '## Brain recall',
  chaos: '## Chaos (durable turns)',
};

/** The header line naming the sections rerun alone since the full run, and when. */
const RERUN_PREFIX = '- Rerun alone since: ';

/**
 * Notes in the header, under its `- Date:` line (the full run's), when each of `names` was rerun
 * alone: the header's date and whole-run time describe the full run only. Earlier entries are
 * kept; a header without a `- Date:` line is left as it is.
 */
function noteRerun(text: string, names: readonly SuiteName[], now: Date): string {
  const sectionsAt = text.search(/^(<!-- bench:|## )/m);
  const head = sectionsAt === -1 ? text : text.slice(0, sectionsAt);
  const lines = head.split('\n');
  const dateAt = lines.findIndex((line) => line.startsWith('- Date: '));
  if (dateAt === -1) return text;
  const at = lines.findIndex((line) => line.startsWith(RERUN_PREFIX));
  const dates = new Map<string, string>();
  for (const match of (lines[at] ?? '').matchAll(/`([a-z-]+)` (\S+?)(?:,|$)/g)) {
    dates.set(match[1] as string, match[2] as string);
  }
  for (const name of names) dates.set(name, now.toISOString());
  const line = `${RERUN_PREFIX}${SUITE_NAMES.filter((name) => dates.has(name))
    .map((name) => `\`${name}\` ${dates.get(name)}`)
    .join(', ')}`;
  if (at === -1) lines.splice(dateAt + 1, 0, line);
  else lines[at] = line;
  return lines.join('\n') + (sectionsAt === -1 ? '' : text.slice(sectionsAt));
}

/**
 * Replaces the given sections of an existing RESULTS.md and leaves the rest as it is: a section is
 * found by its markers, or (in a file written before sections were marked) from its heading to the
 * next heading; a section not found is appended. The header notes when each was rerun alone.
 */
export function updateSections(
  document: string,
  sections: Partial<Record<SuiteName, string>>,
  now = new Date(),
): string {
  let text = noteRerun(
    document.endsWith('\n') ? document : `${document}\n`,
    SUITE_NAMES.filter((name) => sections[name] !== undefined),
    now,
  );
  for (const name of SUITE_NAMES) {
    const section = sections[name];
    if (section === undefined) continue;
    const open = `<!-- bench:${name} -->`;
    const close = `<!-- /bench:${name} -->`;
    const start = text.indexOf(open);
    const end = start === -1 ? -1 : text.indexOf(close, start);
    if (start !== -1 && end !== -1) {
      text = text.slice(0, start) + section + text.slice(end + close.length);
      continue;
    }
    const lines = text.split('\n');
    const first = lines.findIndex((line) => line.startsWith(SECTION_HEADINGS[name]));
    if (first === -1) {
      text = `${text.trimEnd()}\n\n${section}\n`;
      continue;
    }
    let last = first + 1;
    while (
      last < lines.length &&
      !lines[last]?.startsWith('## ') &&
      !lines[last]?.startsWith('<!-- bench:')
    ) {
      last += 1;
    }
    text = [...lines.slice(0, first), section, ...lines.slice(last)].join('\n');
  }
  return text;
}
