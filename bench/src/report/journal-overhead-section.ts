import { verdict } from '../daemon/daemon-stats';
import { JOURNAL_OVERHEAD_TARGET, type JournalOverheadRow } from '../daemon/journal-overhead';
import type { BusyDaemonResult } from '../suites/busy-daemon';
import { asPrinted, msTenth, perSecondText, ratioText } from './report-format';

const msWhole = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '-');
const pair = (on: number, off: number, format: (value: number) => string) => `${format(on)} / ${format(off)}`;

/** Why a level misses the journal's target, from its own figures: the CPU a turn the journal added, and where. */
function journalWhy(row: JournalOverheadRow, backend: string): string {
  const added = (on: number, off: number) => msTenth(on - off);
  const server =
    backend === 'postgres' && Number.isFinite(row.onCpu.postgresMs)
      ? `, the PostgreSQL server ${added(row.onCpu.postgresMs, row.offCpu.postgresMs)}`
      : '';
  return `: with the journal the daemon's thread spent ${added(row.onCpu.threadMs, row.offCpu.threadMs)} more CPU a turn (${pair(row.onCpu.threadMs, row.offCpu.threadMs, msTenth)}), its whole process ${added(row.onCpu.processMs, row.offCpu.processMs)}${server}`;
}

/**
 * The journal's part of the busy-daemon section (issue 41): per backend and level, turns per second of
 * the daemon that journals its turns against one started the same way with `serve.journal: false`,
 * every run's ratio, the CPU a turn of each, and the target's verdict. No lines when no backend ran.
 */
export function journalOverheadLines(result: BusyDaemonResult): string[] {
  const ran = result.backends.filter(
    (backend) => backend.skipped === undefined && backend.journal.length > 0,
  );
  if (ran.length === 0) return [];
  const target = JOURNAL_OVERHEAD_TARGET;
  return [
    '### The turn journal (issue 41)',
    '',
    `Each backend ran a second \`switchyard serve\` beside the daemon above, started the same way (the same options and \`serve\` settings, one warm-up turn) with \`serve.journal: false\` and a database of its own (PGlite in its own folder; on PostgreSQL a fresh database in the same cluster): the daemon above writes every turn's journal (opened at the turn's start, then each model response with the start of its read-only \`list_files\` call, and each call's output, each write awaited before the loop acts on it, beside the budget's statements of the same step), this one none. Both ran every level in the same runs against the same fake model and turns, in rotating order: floor, journal on, journal off in even runs, journal off, journal on, floor in odd ones${result.repeats === 1 ? '' : ` (${result.repeats} runs a level)`}. "On / off" is the journaling daemon's turns per second over the other's in the same run; a row is the run whose ratio is the median (the lower middle of an even count), "each run" lists every run's ratio in the order they ran. CPU a turn is from \`/proc\` over each daemon's own level; the PostgreSQL server's covers the whole cluster (the other daemon idles meanwhile).`,
    '',
    '| backend | turns at once | journal on turns/s | journal off turns/s | on / off | each run | turn p50 on / off | daemon thread CPU a turn on / off | daemon process CPU a turn on / off | PostgreSQL server CPU a turn on / off |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...ran.flatMap((backend) =>
      backend.journal.map(
        (row) =>
          `| ${backend.backend} | ${row.turns} | ${perSecondText(row.onTurnsPerSecond)} | ${perSecondText(row.offTurnsPerSecond)} | ${ratioText(row.ratio)} | ${row.runRatios.map(ratioText).join(', ')} | ${pair(row.onTurnP50Ms, row.offTurnP50Ms, msWhole)} | ${pair(row.onCpu.threadMs, row.offCpu.threadMs, msTenth)} | ${pair(row.onCpu.processMs, row.offCpu.processMs, msTenth)} | ${pair(row.onCpu.postgresMs, row.offCpu.postgresMs, msTenth)} |`,
      ),
    ),
    '',
    ...ran.flatMap((backend) =>
      backend.journal.flatMap((row) =>
        row.problems.map((problem) => `- ${backend.backend}, ${row.turns} turns: ${problem}`),
      ),
    ),
    `Target (issue 41): at most 10 % fewer turns per second with the journal than without it, on each backend (on / off >= ${ratioText(target)}):`,
    '',
    ...ran.flatMap((backend) =>
      backend.journal.map((row) => {
        const judged = verdict(asPrinted(row.ratio), target, 'at-least', ratioText);
        return `- ${backend.backend}, ${row.turns} turns: journal on / off turns/s ${judged}${judged.startsWith('missed') ? journalWhy(row, backend.backend) : ''}`;
      }),
    ),
    '',
  ];
}
