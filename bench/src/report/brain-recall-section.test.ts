import { describe, expect, it } from 'vitest';
import type { BrainRecallBackend } from '../suites/brain-recall';
import { renderBrainRecallSection } from './brain-recall-section';
import { updateSections } from './update-sections';

const figures = (median: number) => ({ median, p90: median * 2, p99: median * 3, max: median * 4 });
const backend = (name: BrainRecallBackend['backend'], median: number): BrainRecallBackend => ({
  backend: name,
  writeSeconds: 42.25,
  recall: figures(median),
  byKind: [{ kind: 'title words', queries: 30, median, max: median * 2 }],
  refused: 0,
  idle: figures(1),
  behindRecall: { ...figures(median / 2), probes: 1234 },
});

describe('the Brain recall section', () => {
  const result = {
    pages: 10_000,
    fullPages: 500,
    megabytes: 47.26,
    queries: 90,
    backends: [
      backend('PGlite', 40),
      { ...backend('PostgreSQL', 10), skipped: 'no PostgreSQL server binaries (initdb) found' },
    ],
    load: [3.5, 4.25] as [number, number],
    cores: 2,
  };

  it('shows each backend’s recall times and the longest wait of another query, and a skipped backend’s reason', () => {
    const section = renderBrainRecallSection(result);
    expect(section).toContain('## Brain recall (10,000 pages)');
    expect(section).toContain(
      '| PGlite | 42.3 s | 40.0 ms | 80.0 ms | 120.0 ms | 160.0 ms | 0 | 1.0 ms / 4.0 ms | 20.0 ms / 60.0 ms / **80.0 ms** (1,234) |',
    );
    expect(section).toContain('| PostgreSQL | skipped: no PostgreSQL server binaries (initdb) found |');
    expect(section).toContain('| PGlite | title words | 30 | 40.0 ms | 80.0 ms |');
    expect(section).not.toContain('| PostgreSQL | title words');
  });

  it('replaces only its own section of RESULTS.md', () => {
    const document =
      '# Benchmark results\n\n<!-- bench:brain-recall -->\nold\n<!-- /bench:brain-recall -->\n\n## Later\n';
    const updated = updateSections(document, { 'brain-recall': renderBrainRecallSection(result) });
    expect(updated).not.toContain('\nold\n');
    expect(updated.match(/## Brain recall/g)).toHaveLength(1);
    expect(updated.endsWith('## Later\n')).toBe(true);
  });
});
