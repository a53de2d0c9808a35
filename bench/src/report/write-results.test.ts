import { describe, expect, it } from 'vitest';
import type { OverheadResult, OverheadRow, ToolVariant } from '../suites/loop-overhead';
import type { ToolStallResult } from '../suites/tool-stall';
import { renderOverheadSection } from './overhead-section';
import { renderToolStallSection } from './tool-stall-section';
import { updateSections } from './update-sections';

const stall = (delay: number): ToolStallResult => ({
  runs: 3,
  corpora: [{ category: 'computer', corpus: 'a home' }],
  rows: [
    {
      category: 'computer',
      tool: 'list_files',
      name: '*a|*b',
      callMs: 12,
      maxCallMs: 20,
      maxDelayMs: delay,
      medianDelayMs: delay,
      maxGapMs: delay + 1,
      maxBusyMs: 3,
      outcome: 'ok: x (1 chars)',
    },
  ],
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  load: [1, 2],
  cores: 2,
});

describe('updateSections', () => {
  const unmarked = [
    '# Benchmark results',
    '',
    '## Parallel batch',
    '',
    'old parallel figures',
    '',
    '## Argument ladder (3 cases, 1 should be rejected)',
    '',
    'ladder figures',
    '',
  ].join('\n');

  it('appends a section the file does not have, leaving the rest byte for byte', () => {
    const updated = updateSections(unmarked, { 'tool-stall': renderToolStallSection(stall(5)) });
    expect(updated.startsWith(unmarked.trimEnd())).toBe(true);
    expect(updated).toContain('<!-- bench:tool-stall -->\n## Tool stall');
    expect(updated).toContain(
      '| list_files | *a\\|*b | 12.00 ms | 20.00 ms | 5.00 ms | 5.00 ms | 6.00 ms | 3.00 ms | ok: x (1 chars) |',
    );
    expect(updated).toContain('Every case stayed within the 250 ms target.');
  });

  it('replaces a marked section in place, and only that one', () => {
    const once = updateSections(unmarked, { 'tool-stall': renderToolStallSection(stall(5)) });
    const twice = updateSections(`${once}\n## Later\n\nkept\n`, {
      'tool-stall': renderToolStallSection(stall(400)),
    });
    expect(twice.match(/## Tool stall/g)).toHaveLength(1);
    expect(twice).toContain('**400.00 ms**');
    expect(twice).toContain('1 of 1 cases went over the 250 ms target: list_files (*a|*b).');
    expect(twice).not.toContain('| 5.00 ms |');
    expect(twice).toContain('ladder figures');
    expect(twice.endsWith('## Later\n\nkept\n')).toBe(true);
  });

  it('replaces an unmarked section from its heading to the next heading', () => {
    const updated = updateSections(unmarked, {
      'parallel-batch':
        '<!-- bench:parallel-batch -->\n## Parallel batch\n\nnew\n<!-- /bench:parallel-batch -->',
    });
    expect(updated).not.toContain('old parallel figures');
    expect(updated).toContain('new\n<!-- /bench:parallel-batch -->\n## Argument ladder');
    expect(updated).toContain('ladder figures');
  });
});

describe('updateSections in a file with a header', () => {
  const document = [
    '# Benchmark results',
    '',
    '- Date: 2026-12-02T10:38:17.627Z',
    '- Node v20.20.2; whole run 76 s',
    '',
    '<!-- bench:tool-stall -->',
    '## Tool stall',
    '',
    'old',
    '<!-- /bench:tool-stall -->',
    '',
  ].join('\n');

  it("notes under the full run's date which sections were rerun alone, and when", () => {
    const first = updateSections(
      document,
      { 'tool-stall': renderToolStallSection(stall(5)) },
      new Date('2026-12-04T03:00:00.000Z'),
    );
    expect(first).toContain(
      '- Date: 2026-12-02T10:38:17.627Z\n- Rerun alone since: `tool-stall` 2026-12-04T03:00:00.000Z\n- Node v20.20.2; whole run 76 s\n',
    );
    const second = updateSections(
      first,
      {
        'loop-overhead':
          '<!-- bench:loop-overhead -->\n## Agent turn overhead\n<!-- /bench:loop-overhead -->',
        'tool-stall': renderToolStallSection(stall(6)),
      },
      new Date('2026-12-05T04:00:00.000Z'),
    );
    // In report order, each with its latest rerun; one line, not two.
    expect(second.match(/- Rerun alone since:/g)).toHaveLength(1);
    expect(second).toContain(
      '- Rerun alone since: `loop-overhead` 2026-12-05T04:00:00.000Z, `tool-stall` 2026-12-05T04:00:00.000Z\n',
    );
    const third = updateSections(
      second,
      { 'busy-daemon': '<!-- bench:busy-daemon -->\n## Busy daemon\n<!-- /bench:busy-daemon -->' },
      new Date('2026-12-06T05:00:00.000Z'),
    );
    expect(third).toContain(
      '- Rerun alone since: `loop-overhead` 2026-12-05T04:00:00.000Z, `tool-stall` 2026-12-05T04:00:00.000Z, `busy-daemon` 2026-12-06T05:00:00.000Z\n',
    );
  });

  it('leaves a header without a date as it is', () => {
    const bare = '# Benchmark results\n\n## Parallel batch\n\nold\n';
    const updated = updateSections(bare, { 'tool-stall': renderToolStallSection(stall(5)) });
    expect(updated).not.toContain('Rerun alone');
    expect(updated.startsWith('# Benchmark results\n\n## Parallel batch\n\nold\n')).toBe(true);
  });
});

describe('renderOverheadSection', () => {
  const row = (
    name: string,
    variant: ToolVariant,
    cpuToBare: number,
    firstRequestToBare: number,
    marks: { schemasCreated: number; toolsDefined: number } = { schemasCreated: NaN, toolsDefined: NaN },
  ): OverheadRow => ({
    name,
    variant,
    wall: 100,
    cpu: 100 * cpuToBare,
    firstRequest: 10 * firstRequestToBare,
    ...marks,
    wallToBare: cpuToBare,
    cpuToBare,
    firstRequestToBare,
    wallToSwitchyard: 1,
    cpuToSwitchyard: 1,
    wallPerIteration: 0,
    cpuPerIteration: 0,
  });
  const overhead = (rows: OverheadRow[]): OverheadResult => ({
    rounds: 40,
    iterations: 20,
    batch: 3,
    tools: 50,
    load: { before: [1, 1, 1], after: [1, 1, 1] },
    rows,
    baseline: 'bare openai SDK loop',
    failed: [],
  });

  it("judges Switchyard's ratios against the targets at the precision the table prints", () => {
    const section = renderOverheadSection(
      overhead([
        row('bare openai SDK loop', 'module', 1, 1),
        row('switchyard', 'module', 1.0349, 0.24),
        row('bare openai SDK loop', 'fresh', 1, 1),
        row('switchyard', 'fresh', 1.11, 1.13),
      ]),
    );
    expect(section).toContain("- module-level schemas, the whole turn's CPU: met (1.03x <= 1.03x)");
    expect(section).toContain(
      "- fresh schemas, the whole turn's CPU: missed by 0.06x (1.11x, target <= 1.05x)",
    );
    expect(section).toContain('- fresh schemas, the time to the first request: met (1.13x <= 1.25x)');
  });

  it("breaks a fresh turn's time before its first request into schemas, definition and request, beside the bare loop's", () => {
    const section = renderOverheadSection(
      overhead([
        row('bare openai SDK loop', 'fresh', 1, 1, { schemasCreated: 6, toolsDefined: 9 }),
        row('switchyard', 'fresh', 0.9, 1.5, { schemasCreated: 6.5, toolsDefined: 11 }),
      ]),
    );
    expect(section).toContain(
      '- fresh schemas, the time to the first request: missed by 0.25x (1.50x, target <= 1.25x); medians: the 50 Zod schemas created 6.50 ms into the turn (the bare loop: 6.00 ms), the tools defined 4.50 ms later (',
    );
    expect(section).toContain(
      'no projection: 3.00 ms), the first request at the server 4.00 ms after that (1.00 ms)\n',
    );
  });

  it('leaves the breakdown out when a runtime did not mark its tools defined', () => {
    const section = renderOverheadSection(
      overhead([
        row('bare openai SDK loop', 'fresh', 1, 1, { schemasCreated: 6, toolsDefined: NaN }),
        row('switchyard', 'fresh', 0.9, 1.1, { schemasCreated: 6.5, toolsDefined: 11 }),
      ]),
    );
    expect(section).toContain('- fresh schemas, the time to the first request: met (1.10x <= 1.25x)\n');
  });

  it('says a target was not measured when Switchyard failed its turn check', () => {
    const section = renderOverheadSection(overhead([row('bare openai SDK loop', 'fresh', 1, 1)]));
    expect(section).toContain("- fresh schemas, the whole turn's CPU: not measured (target <= 1.05x)");
  });
});
