import type { RequestBurstResult, RequestBurstRow } from '../suites/request-burst';

const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '-');
const sum = (counts: Record<string, number>) =>
  Object.values(counts).reduce((total, count) => total + count, 0);

/** Answers that are neither `202` nor `503`, as `status: count` text. */
function otherStatuses(row: RequestBurstRow): string {
  const other = Object.entries(row.statuses).filter(([status]) => status !== '202' && status !== '503');
  return other.length === 0 ? '0' : other.map(([status, count]) => `${count} x ${status}`).join(', ');
}

/** Requests without an answer: resets, then the rest by error. */
function unanswered(row: RequestBurstRow): string {
  const resets = row.errors.ECONNRESET ?? 0;
  const rest = Object.entries(row.errors).filter(([code]) => code !== 'ECONNRESET');
  return `${resets}${rest.length === 0 ? '' : ` (and ${rest.map(([code, count]) => `${count} ${code}`).join(', ')})`}`;
}

/** Whether a row meets issue 37's target: every request answered, each `202` or `503`. */
export function burstMeetsTarget(row: RequestBurstRow): boolean {
  const answered = (row.statuses['202'] ?? 0) + (row.statuses['503'] ?? 0);
  return answered === row.requests && sum(row.errors) === 0 && sum(row.statuses) === answered;
}

/** The target line of one backend's row on the machine's own open-file limit. */
function targetLine(row: RequestBurstRow): string {
  const answered = sum(row.statuses);
  const verdict = burstMeetsTarget(row)
    ? `met (${answered} answers of ${row.requests}, each 202 or 503, ${unanswered(row)} reset)`
    : `missed: ${answered} answers of ${row.requests}, other statuses ${otherStatuses(row)}, without an answer ${unanswered(row)}`;
  return `- ${row.backend === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'}: ${verdict}`;
}

/** The request-burst section of RESULTS.md. */
export function renderRequestBurstSection(result: RequestBurstResult): string {
  const own = result.rows.filter((row) => row.imposedFileLimit === undefined);
  const imposed = result.rows.filter((row) => row.imposedFileLimit !== undefined);
  const requests = result.rows[0]?.requests ?? 0;
  return [
    '<!-- bench:request-burst -->',
    '## Request burst',
    '',
    `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after, \`net.core.somaxconn\` ${result.somaxconn ?? 'unknown'} (\`BENCH_SUITES=request-burst\` reruns only this section). Issue 37: ${requests} \`POST /v1/turns\` sent at once, each on a connection of its own (\`node:http\` without an agent, no client timeout), to one \`switchyard serve\` child process (the built CLI, default settings, agent \`bench\`, a fresh folder or throw-away PostgreSQL cluster per row, one warm-up turn first), the testkit's fake Responses server as the model: the busy daemon's turn, ${result.calls} model responses that each ask for one \`list_files\`, then a text answer. A row per backend on the machine's own open-file limit, and under an imposed one (\`prlimit --nofile\`, soft and hard). Answer times are from the burst's start to each answer's end. Turns recorded: the turns \`GET /v1/turns\` lists after the burst (each \`202\` must name one, a \`503\` none), completed once the daemon reports none running. Peak open files: \`/proc/PID/fd\` of the process, sampled every 20 ms.`,
    '',
    '| backend | open-file limit | `serve.maxWaitingWork` | 202 | 503 (with `Retry-After`) | other answers | no answer: resets | answer p50 / p99 / last | turns recorded / completed | peak open files |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (row) =>
        `| ${row.backend} | ${row.openFileLimit}${row.imposedFileLimit === undefined ? '' : ' (imposed)'} | ${row.maxWaitingWork} | ${row.statuses['202'] ?? 0} | ${row.statuses['503'] ?? 0} (${row.shedWithRetryAfter}) | ${otherStatuses(row)} | ${unanswered(row)} | ${seconds(row.answerMs.p50)} / ${seconds(row.answerMs.p99)} / ${seconds(row.answerMs.last)} | ${row.turnsRecorded} / ${row.turnsCompleted} | ${row.peakOpenFiles} |`,
    ),
    '',
    ...result.rows.flatMap((row) =>
      row.problems.map((problem) => `- ${row.backend}, open-file limit ${row.openFileLimit}: ${problem}`),
    ),
    ...result.skipped.map((reason) => `- Skipped: ${reason}`),
    ...result.rows
      .filter((row) => row.log.length > 0)
      .flatMap((row) => [
        `The daemon's log, ${row.backend}, open-file limit ${row.openFileLimit}:`,
        '',
        ...row.log.map((line) => `    ${line}`),
        '',
      ]),
    `Target (issue 37), each backend on the machine's own open-file limit: ${requests} answers, each 202 or 503, none reset.`,
    '',
    ...own.map(targetLine),
    ...(imposed.length === 0
      ? []
      : [
          '',
          `Under an imposed open-file limit smaller than the burst (${[...new Set(imposed.map((row) => row.imposedFileLimit))].join(', ')}), not judged: Node cannot stop accepting connections for a while, and a process without a file descriptor left cannot answer one. \`serve\` lowers \`serve.maxWaitingWork\` to fit the limit and keeps its open connections under the rest, closing any over it unanswered (each such burst of drops is logged) instead of running out of files, which resets every connection waiting in the kernel's queue at once and breaks the turns' own connections. How many are dropped depends on how fast the clients send their requests once connected: from none to most of the burst in runs on this machine. The cure is a limit with room for the burst (\`LimitNOFILE=\`, \`ulimit -n\`).`,
        ]),
    '',
    '<!-- /bench:request-burst -->',
  ].join('\n');
}
