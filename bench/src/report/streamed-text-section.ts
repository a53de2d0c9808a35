import { median } from '../measure';
import { addedByDeltas, type StreamedTextResult, type StreamedTextRow } from '../suites/streamed-text';
import { marked } from './report-format';

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : '-');
const signedMs = (value: number) =>
  Number.isFinite(value) ? `${value < 0 ? '-' : '+'}${Math.abs(value).toFixed(2)} ms` : '-';
const each = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(', ');

function streamedTextRow(result: StreamedTextResult, row: StreamedTextRow): string {
  const added = addedByDeltas(result.rows, row);
  const first = row === result.rows[0];
  const perThousand = (value: number) =>
    first || row.deltas <= 1 ? '-' : ms((value * 1000) / (row.deltas - 1));
  return `| ${row.deltas.toLocaleString('en-US')} | ${row.gapMs === 0 ? 'at once' : `${row.gapMs} ms`} | ${row.failed === 0 ? 'all' : `${row.failed} failed`} | ${ms(median(row.processMs))} (${each(row.processMs)}) | ${ms(median(row.mainThreadMs))} (${each(row.mainThreadMs)}) | ${first ? '-' : `${signedMs(added.processMs)} / ${signedMs(added.mainThreadMs)}`} | ${first ? '-' : `${perThousand(added.processMs)} / ${perThousand(added.mainThreadMs)}`} |`;
}

/** The streamed-text section. */
export function renderStreamedTextSection(result: StreamedTextResult): string {
  return marked('streamed-text', [
    '## Streamed text',
    '',
    `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after (\`BENCH_SUITES=streamed-text\` reruns only this section). One \`switchyard serve\` (the built CLI, embedded PGlite, default settings) and the testkit's fake model. Per case and round, ${result.turns} API turns posted at once, each one model request answered with the same ${result.textChars.toLocaleString('en-US')} characters of text, streamed in the case's number of \`response.output_text.delta\` events, written at once or the given time apart (as a model streams); each turn checked to complete with the whole text. ${result.rounds} rounds after a warm-up, the cases in rotating order. CPU a turn from \`/proc\` over each case: the daemon's process (every thread: the model's thread, which reads the stream, PGlite's, V8's) and its main thread (the event loop every agent's turns and the API share). "Added" is the case's median over that of the answers in one delta; "per 1,000 deltas" divides it by the extra deltas. The model's thread sends the daemon's loop the text read in one turn of its own loop as one message, each request's deltas joined.`,
    '',
    '| deltas an answer | spacing | turns | CPU a turn, process: median (each round) | CPU a turn, main thread: median (each round) | added: process / main thread | per 1,000 deltas: process / main thread |',
    '|---|---|---|---|---|---|---|',
    ...result.rows.map((row) => streamedTextRow(result, row)),
    '',
  ]);
}
