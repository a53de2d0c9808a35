import type { ParallelBatchRow } from '../suites/parallel-batch';
import { marked, msText } from './report-format';

/** The parallel-batch section. */
export function renderParallelSection(parallel: readonly ParallelBatchRow[]): string {
  return marked('parallel-batch', [
    '## Parallel batch',
    '',
    'One response with 8 calls to 8 tools that each wait 100 ms, then a text answer: the whole turn (two model requests and the batch), median of 5 turns, and the most calls executing at once (counted inside the tools). Concurrent execution takes about 100 ms plus the requests; sequential takes 800 ms.',
    '',
    '| runtime | turn | most calls at once |',
    '|---|---|---|',
    ...parallel.map((row) => `| ${row.name} | ${msText(row.turn)} | ${row.maxInFlight} of 8 |`),
    '',
  ]);
}
