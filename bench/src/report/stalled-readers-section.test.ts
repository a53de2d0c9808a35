import { describe, expect, it } from 'vitest';
import type { StalledReadersResult, StalledReadersRun } from '../suites/stalled-readers';
import { renderStalledReadersSection } from './stalled-readers-section';

const MB = 2 ** 20;

/** A run whose RSS starts at 400 MB and grows by `peak` and `after` MB, and what it holds by `live`. */
const run = (
  stalledReaders: number,
  reading: boolean,
  growth: { peak: number; after: number; live: number },
): StalledReadersRun => ({
  stalledReaders,
  reading,
  completed: 24,
  seconds: 6.25,
  rssBefore: 400 * MB,
  rssPeak: (400 + growth.peak) * MB,
  rssAfter: (400 + growth.after) * MB,
  liveBefore: 50 * MB,
  liveAfter: (50 + growth.live) * MB,
  cutOffWithEvent: stalledReaders,
  closedByDaemon: 0,
  neverCutOff: 0,
  readerText: reading ? 12_582_912 : Number.NaN,
  readerCutOff: false,
});

const result = (runs: StalledReadersRun[]): StalledReadersResult => ({
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  load: [1.5, 2.5],
  turns: 24,
  textBytes: 524_288,
  deltas: 16_384,
  repeats: 3,
  runs,
});

const threeEach = result([
  run(0, false, { peak: 130, after: 100, live: 20 }),
  run(40, false, { peak: 140, after: 110, live: 20 }),
  run(40, true, { peak: 250, after: 200, live: 30 }),
  run(0, false, { peak: 100, after: 90, live: 18 }),
  run(40, false, { peak: 260, after: 100, live: 22 }),
  run(40, true, { peak: 240, after: 210, live: 28 }),
  run(0, false, { peak: 120, after: 80, live: 19 }),
  run(40, false, { peak: 150, after: 95, live: 21 }),
  run(40, true, { peak: 230, after: 220, live: 29 }),
]);

describe('the stalled-readers section', () => {
  it('renders a row per kind of run: medians, each run, and what became of the readers', () => {
    const text = renderStalledReadersSection(threeEach);
    expect(text.startsWith('<!-- bench:stalled-readers -->\n## Stalled readers')).toBe(true);
    expect(text).toContain(
      '24 turns started at once, each streaming 524,288 characters of text in 16,384 deltas',
    );
    expect(text).toContain('3 runs of each kind, the kinds interleaved');
    expect(text).toContain(
      '| none | 3 | 24 of 24 | 6.3 | 400.0 MB | +120.0 MB (+130.0 MB, +100.0 MB, +120.0 MB) | +90.0 MB (+100.0 MB, +90.0 MB, +80.0 MB) | +19.0 MB | - | - |',
    );
    expect(text).toContain(
      '| 40 stalled | 3 | 24 of 24 | 6.3 | 400.0 MB | +150.0 MB (+140.0 MB, +260.0 MB, +150.0 MB) | +100.0 MB (+110.0 MB, +100.0 MB, +95.0 MB) | +21.0 MB | 120 / 0 / 0 | - |',
    );
    expect(text).toContain('| 40 stalled, 1 reading | 3 |');
    expect(text).toContain('| 12,582,912 of 12,582,912 |');
  });

  it('judges the target on what the stalled readers add over the turns alone, and states the whole growth too', () => {
    const text = renderStalledReadersSection(threeEach);
    expect(text).toContain(
      'what the stalled readers add: the median RSS growth of their runs over that of the same turns without readers, at the peak met (30.0 MB <= 100.0 MB), 5 s after met (10.0 MB <= 100.0 MB); what the daemon held after a full collection, +2.0 MB.',
    );
    expect(text).toContain(
      "The whole RSS growth of their runs (median), the turns' own included, against the same figure: at the peak missed by 50.0 MB (150.0 MB, target <= 100.0 MB), 5 s after met (100.0 MB <= 100.0 MB).",
    );
  });

  it('says the target was not measured without runs of both kinds', () => {
    const text = renderStalledReadersSection(result([run(0, false, { peak: 130, after: 100, live: 20 })]));
    expect(text).toContain('Target (issue 37): not measured.');
    expect(text).not.toContain('| 40 stalled |');
  });
});
