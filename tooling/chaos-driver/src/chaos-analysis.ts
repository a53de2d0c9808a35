import type { ModelRequestRecord } from './chaos-model';

/** One line of the side-effect ledger: one execution of a unit's call. */
export interface LedgerLine {
  unit: string;
  step: number;
  /** When the command wrote it (ms since the epoch). */
  at: number;
}

/** What the journals of a unit's turns hold, merged (the entries' keys only). */
export interface UnitJournal {
  /** Recorded model responses: step (iteration) and response id. */
  responses: ReadonlyArray<{ iteration: number; id: string }>;
  /** Call ids recorded as started, per turn (a start without that turn's output is in doubt). */
  turns: ReadonlyArray<{ started: readonly string[]; outputs: readonly string[] }>;
}

/** Where the unit a kill interrupted was, judged from the model's answers and the ledger. */
export type KillMoment = 'waiting-for-model' | 'answer-to-effect' | 'effect-to-record' | 'after-final-answer';

/** A kill and what its process was running. */
export interface KillRecord {
  /** When the SIGKILL was sent (ms since the epoch). */
  at: number;
  slot: number;
  /** How it was aimed: `random`, or at an `answer`, a `call` or a call's `record`. */
  aim: string;
  /** Units whose latest model request came from this slot and whose final answer was not sent. */
  inFlight: readonly string[];
}

/** The figures of a chaos run. */
export interface ChaosFigures {
  kills: number;
  /** Units started. */
  units: number;
  /** Executions of calls whose output was recorded, beyond the first (goal 0). */
  recordedOutputRunAgain: number;
  /** Executions, beyond the first, of calls recorded in doubt (started, no output) (goal 0). */
  inDoubtRunAgain: number;
  /** Executions, beyond the first, of calls no journal recorded at all (goal 0). */
  unrecordedRunAgain: number;
  /** Model requests for a step after a response for it was recorded (goal 0). */
  repeatedRequests: number;
  /** Units started that reached no end (goal 0). */
  unitsLost: number;
  /** From a kill to the next model request or call of a unit it interrupted, ms. */
  resume: { count: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Interrupted units by where they were when their process was killed. */
  moments: Record<KillMoment, number>;
  /** Kills by aim. */
  aims: Record<string, number>;
  /** A line per violation, for the failure message. */
  problems: string[];
}

/** What `analyzeChaos` reads. */
export interface ChaosEvidence {
  kills: readonly KillRecord[];
  units: readonly string[];
  lostUnits: readonly string[];
  ledger: readonly LedgerLine[];
  requests: readonly ModelRequestRecord[];
  /** The final step of each unit (its calls are steps 1 to finalStep - 1). */
  finalStep: number;
  /** When each answer went out: request's response id -> ms since the epoch. */
  answeredAt: ReadonlyMap<string, number>;
  journals: ReadonlyMap<string, UnitJournal>;
}

/** Parses the ledger file's text (`<unit>/<step> <ms>` per line). */
export function parseLedger(text: string): LedgerLine[] {
  const lines: LedgerLine[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-z]+-[0-9]+[a-z]?)\/([0-9]+) ([0-9]+)$/.exec(line.trim());
    if (match?.[1] !== undefined)
      lines.push({ unit: match[1], step: Number(match[2]), at: Number(match[3]) });
  }
  return lines;
}

/** The figures of a chaos run from what it recorded (pure: every input is data). */
export function analyzeChaos(evidence: ChaosEvidence): ChaosFigures {
  const problems: string[] = [];
  const runAgain = countRunAgain(evidence, problems);
  const repeatedRequests = countRepeatedRequests(evidence, problems);
  for (const unit of evidence.lostUnits) problems.push(`${unit}: started, never ended`);
  const { delays, moments } = readKills(evidence);
  const aims: Record<string, number> = {};
  for (const kill of evidence.kills) aims[kill.aim] = (aims[kill.aim] ?? 0) + 1;
  return {
    kills: evidence.kills.length,
    units: evidence.units.length,
    ...runAgain,
    repeatedRequests,
    unitsLost: evidence.lostUnits.length,
    resume: {
      count: delays.length,
      p50Ms: percentile(delays, 0.5),
      p99Ms: percentile(delays, 0.99),
      maxMs: delays.length === 0 ? Number.NaN : Math.max(...delays),
    },
    moments,
    aims,
    problems,
  };
}

function countRunAgain(evidence: ChaosEvidence, problems: string[]) {
  const executions = new Map<string, number>();
  for (const line of evidence.ledger) {
    const key = `${line.unit}/${line.step}`;
    executions.set(key, (executions.get(key) ?? 0) + 1);
  }
  let recordedOutputRunAgain = 0;
  let inDoubtRunAgain = 0;
  let unrecordedRunAgain = 0;
  for (const [key, count] of executions) {
    if (count < 2) continue;
    const [unit = '', step = ''] = key.split('/');
    const callId = `call_${step}`;
    const turns = evidence.journals.get(unit)?.turns ?? [];
    // A turn that recorded the start and not the output left the call in doubt (a later attempt's
    // journal, which copies it, may hold the output the rerun wrote).
    const inDoubt = turns.some((turn) => turn.started.includes(callId) && !turn.outputs.includes(callId));
    const recorded = turns.some((turn) => turn.outputs.includes(callId));
    const extra = count - 1;
    if (inDoubt) inDoubtRunAgain += extra;
    else if (recorded) recordedOutputRunAgain += extra;
    else unrecordedRunAgain += extra;
    const kind = inDoubt ? 'in doubt' : recorded ? 'with a recorded output' : 'never recorded';
    problems.push(`${key}: executed ${count} times (call ${kind})`);
  }
  return { recordedOutputRunAgain, inDoubtRunAgain, unrecordedRunAgain };
}

function countRepeatedRequests(evidence: ChaosEvidence, problems: string[]): number {
  const byStep = new Map<string, ModelRequestRecord[]>();
  for (const request of evidence.requests) {
    const key = `${request.unit}/${request.step}`;
    const list = byStep.get(key) ?? [];
    list.push(request);
    byStep.set(key, list);
  }
  let repeated = 0;
  for (const [key, list] of byStep) {
    const [unit = '', step = ''] = key.split('/');
    const recordedIds = new Set(
      (evidence.journals.get(unit)?.responses ?? [])
        .filter((response) => response.iteration === Number(step))
        .map((response) => response.id),
    );
    const sorted = [...list].sort((left, right) => left.at - right.at);
    const first = sorted.findIndex((request) => recordedIds.has(request.responseId));
    if (first === -1) continue;
    const after = sorted.length - 1 - first;
    if (after > 0) {
      repeated += after;
      problems.push(`${key}: asked ${after} more time(s) after its response was recorded`);
    }
  }
  return repeated;
}

function readKills(evidence: ChaosEvidence) {
  const moments: Record<KillMoment, number> = {
    'waiting-for-model': 0,
    'answer-to-effect': 0,
    'effect-to-record': 0,
    'after-final-answer': 0,
  };
  const delays: number[] = [];
  const requestsOf = groupBy(evidence.requests, (request) => request.unit);
  const linesOf = groupBy(evidence.ledger, (line) => line.unit);
  for (const kill of evidence.kills) {
    for (const unit of kill.inFlight) {
      const requests = requestsOf.get(unit) ?? [];
      const lines = linesOf.get(unit) ?? [];
      const last = requests.filter((request) => request.at <= kill.at).at(-1);
      if (last === undefined) continue;
      const answeredAt = evidence.answeredAt.get(last.responseId) ?? last.at;
      if (kill.at < answeredAt) moments['waiting-for-model'] += 1;
      else if (last.step >= evidence.finalStep) moments['after-final-answer'] += 1;
      else if (lines.some((line) => line.step === last.step && line.at <= kill.at))
        moments['effect-to-record'] += 1;
      else moments['answer-to-effect'] += 1;
      const next = Math.min(
        ...requests.filter((request) => request.at > kill.at).map((request) => request.at),
        ...lines.filter((line) => line.at > kill.at).map((line) => line.at),
      );
      if (Number.isFinite(next)) delays.push(next - kill.at);
    }
  }
  return { delays, moments };
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const list = groups.get(key) ?? [];
    list.push(item);
    groups.set(key, list);
  }
  return groups;
}

/** The `fraction` percentile of `values` (nearest rank), NaN for none. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}
