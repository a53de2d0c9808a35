import { verdict } from '../daemon/daemon-stats';
import { median } from '../measure';
import {
  addedByReaders,
  growthOf,
  runsOf,
  STALLED_READERS_TARGET_BYTES,
  type StalledReadersResult,
} from '../suites/stalled-readers';
import { marked } from './report-format';

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const formatNumber = (value: number) => (Number.isFinite(value) ? value.toLocaleString('en-US') : '-');
const signedMegabytes = (bytes: number) => `${bytes < 0 ? '-' : '+'}${megabytes(Math.abs(bytes))}`;

/** The row of one kind of run (medians over its runs). */
function stalledReadersRow(result: StalledReadersResult, stalled: number, reading: boolean): string {
  const runs = runsOf(result, stalled, reading);
  const readers = stalled === 0 ? 'none' : `${stalled} stalled${reading ? ', 1 reading' : ''}`;
  const growths = runs.map(growthOf);
  const spread = (key: 'peak' | 'after') =>
    `${signedMegabytes(median(growths.map((growth) => growth[key])))} (${growths.map((growth) => signedMegabytes(growth[key])).join(', ')})`;
  const sum = (key: 'cutOffWithEvent' | 'closedByDaemon' | 'neverCutOff') =>
    runs.reduce((total, run) => total + run[key], 0);
  const cut =
    stalled === 0 ? '-' : `${sum('cutOffWithEvent')} / ${sum('closedByDaemon')} / ${sum('neverCutOff')}`;
  const fewest = Math.min(...runs.map((run) => run.readerText));
  const readingText = reading
    ? `${formatNumber(fewest)} of ${formatNumber(result.turns * result.textBytes)}${runs.some((run) => run.readerCutOff) ? ' (cut off)' : ''}`
    : '-';
  return `| ${readers} | ${runs.length} | ${Math.min(...runs.map((run) => run.completed))} of ${result.turns} | ${median(runs.map((run) => run.seconds)).toFixed(1)} | ${megabytes(median(runs.map((run) => run.rssBefore)))} | ${spread('peak')} | ${spread('after')} | ${signedMegabytes(median(growths.map((growth) => growth.live)))} | ${cut} | ${readingText} |`;
}

/** The stalled-readers section. */
export function renderStalledReadersSection(result: StalledReadersResult): string {
  const target = STALLED_READERS_TARGET_BYTES;
  const stalledCount = Math.max(0, ...result.runs.map((run) => run.stalledReaders));
  const measured =
    stalledCount > 0 && runsOf(result, 0, false).length > 0 && runsOf(result, stalledCount, false).length > 0;
  const added = addedByReaders(result);
  const whole = (key: 'peak' | 'after') =>
    median(runsOf(result, stalledCount, false).map((run) => growthOf(run)[key]));
  const kinds: Array<[number, boolean]> =
    stalledCount === 0
      ? [[0, false]]
      : [
          [0, false],
          [stalledCount, false],
          [stalledCount, true],
        ];
  return marked('stalled-readers', [
    '## Stalled readers',
    '',
    `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after (\`BENCH_SUITES=stalled-readers\` reruns only this section). \`switchyard serve\` (the built CLI, embedded PGlite, default settings: an event stream holds at most 4 MiB for its reader, \`serve.maxEventStreamBytes\`; finished turns kept in memory up to 32 MiB, \`serve.maxRetainedTurnBytes\`) with the testkit's fake model: ${result.turns} turns started at once, each streaming ${formatNumber(result.textBytes)} characters of text in ${formatNumber(result.deltas)} deltas. Every run on a fresh daemon after 2 such turns as a warm-up, ${result.repeats} runs of each kind, the kinds interleaved: the daemon's RSS (\`/proc\`) before the readers opened, the highest sampled every 100 ms while the turns ran, and 5 s after the last ended (the readers still connected); and what its main thread held (V8 heap in use and the buffers it holds) after a full garbage collection before the run and after it (\`heap-monitor.mjs\`, after the RSS was read), which leaves out garbage not yet collected and memory the allocators keep for reuse, both in RSS. A stalled reader is a raw socket that reads the answer's head and the stream's opening comment, then nothing; once the turns ended each reads on: its stream ended with the overflow event, the daemon had closed its connection (the event not taken within 30 s), or neither (not cut off). The reading reader reads \`/v1/events\` as fast as it can in the benchmark's process.`,
    '',
    '| readers | runs | turns completed | seconds | RSS before | RSS growth to peak: median (each run) | RSS growth 5 s after: median (each run) | held after a full collection: growth | stalled readers: overflow event / closed / not cut off | reading reader: characters of text |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...kinds
      .filter(([stalled, reading]) => runsOf(result, stalled, reading).length > 0)
      .map(([stalled, reading]) => stalledReadersRow(result, stalled, reading)),
    '',
    measured
      ? `Target (issue 37), what the stalled readers add: the median RSS growth of their runs over that of the same turns without readers, at the peak ${verdict(added.peak, target, 'at-most', megabytes)}, 5 s after ${verdict(added.after, target, 'at-most', megabytes)}; what the daemon held after a full collection, ${signedMegabytes(added.live)}. The whole RSS growth of their runs (median), the turns' own included, against the same figure: at the peak ${verdict(whole('peak'), target, 'at-most', megabytes)}, 5 s after ${verdict(whole('after'), target, 'at-most', megabytes)}.`
      : 'Target (issue 37): not measured.',
    '',
  ]);
}
