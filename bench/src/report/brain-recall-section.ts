import type { BrainRecallResult } from '../suites/brain-recall';
import { RECALL_LIMIT } from '../suites/brain-recall';
import { msTenth } from './report-format';

const integer = new Intl.NumberFormat('en-US');

/** The `brain-recall` section of RESULTS.md (with its markers). */
export function renderBrainRecallSection(result: BrainRecallResult): string {
  const ran = result.backends.filter((backend) => backend.skipped === undefined);
  const lines = [
    '<!-- bench:brain-recall -->',
    `## Brain recall (${integer.format(result.pages)} pages)`,
    '',
    `${integer.format(result.pages)} pages of one agent written through \`remember\` (${integer.format(result.fullPages)} of them full pages of about 60 KB, the rest 120 to 250 words; ${result.megabytes.toFixed(1)} MB of text: pseudo-words drawn by Zipf's law from a fixed seed, \`src/scenarios/brain-corpus.ts\`), on embedded PGlite and on a throw-away PostgreSQL cluster, with the control plane's default Brain limits. ${result.queries} queries, a third each naming a page by two or three words of its title, two to four words drawn like the pages' own (which match thousands of pages) and one frequent word, each timed alone with limit ${RECALL_LIMIT} (the most the \`recall\` tool asks for); then each again while another query of the worker (\`getPage\`, a page read by its id) ran back to back beside it: the longest such read is how long another query waited behind a recall. On PGlite every query of the worker goes through one connection (in a thread of its own), so that wait is what one recall costs everyone else; PostgreSQL serves it from another pooled connection. Load average (1 min) ${result.load[0].toFixed(2)} when the section began and ${result.load[1].toFixed(2)} when it ended (${result.cores} cores).`,
    '',
    '| backend | pages written in | recall median | p90 | p99 | worst | refused by the time limit | another query alone (median / worst) | another query behind a recall: median / p99 / worst (reads) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...result.backends.map((backend) =>
      backend.skipped !== undefined
        ? `| ${backend.backend} | skipped: ${backend.skipped} | | | | | | | |`
        : `| ${backend.backend} | ${backend.writeSeconds.toFixed(1)} s | ${msTenth(backend.recall.median)} | ${msTenth(backend.recall.p90)} | ${msTenth(backend.recall.p99)} | ${msTenth(backend.recall.max)} | ${backend.refused} | ${msTenth(backend.idle.median)} / ${msTenth(backend.idle.max)} | ${msTenth(backend.behindRecall.median)} / ${msTenth(backend.behindRecall.p99)} / **${msTenth(backend.behindRecall.max)}** (${integer.format(backend.behindRecall.probes)}) |`,
    ),
    '',
    '| backend | query | queries | recall median | worst |',
    '|---|---|---|---|---|',
    ...ran.flatMap((backend) =>
      backend.byKind.map(
        (kind) =>
          `| ${backend.backend} | ${kind.kind} | ${kind.queries} | ${msTenth(kind.median)} | ${msTenth(kind.max)} |`,
      ),
    ),
    '',
    'What bounds a recall (see the control plane README, "The Brain"): the newest 500 matching pages are considered (`brain.maxRecallRows`), `ts_rank_cd` runs on the best 100 of them by cheap signals, snippets come from the first 4,096 characters of the returned pages, and on PostgreSQL every statement runs under a 2 s `statement_timeout` (`brain.recallTimeoutMs`). PGlite cannot cancel a statement, so there those caps are the bound.',
    '<!-- /bench:brain-recall -->',
  ];
  return lines.join('\n');
}
