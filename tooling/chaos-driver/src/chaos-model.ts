import {
  type FakeRequest,
  type FakeResponse,
  type FakeResponsesServer,
  startFakeResponsesServer,
} from '@switchyard/testkit';

/** The file in the agent's home every call of a chaos unit appends its line to. */
export const LEDGER_FILE = 'chaos-ledger.log';

/** The prompt of every chaos unit: `CHAOS <unit>` (`job-3`, `fire-1`, `api-7`, `task-2a`). */
// (A task's turn may get more after it, such as the results of the tasks it depends on.)
const PROMPT = /^CHAOS ([a-z]+-[0-9]+[a-z]?)(?![a-z0-9-])/;

/** One request the fake model answered for a chaos unit. */
export interface ModelRequestRecord {
  /** The unit (`job-3`). */
  unit: string;
  /** The step asked for: 1 + the number of call outputs the request carried. */
  step: number;
  /** The fleet slot whose process sent it (each slot has its own fake server). */
  slot: number;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** The id its response carries (unique per request): what the turn's journal records. */
  responseId: string;
}

/** A step the model answered with a call: what an aimed kill waits for. */
export interface AnsweredCall {
  unit: string;
  step: number;
  slot: number;
  /** When the answer goes out (ms since the epoch): the request's arrival plus its delay. */
  answeredAt: number;
  /** How long the command sleeps before it appends its ledger line, ms. */
  sleepMs: number;
}

/** How the chaos model answers. */
export interface ChaosModelOptions {
  /** Calls per unit before its final answer. */
  steps: number;
  /** Each answer is held 0 to this many ms (so kills land while a request is out). */
  maxDelayMs: number;
  /** The random source (0 <= x < 1). */
  random: () => number;
}

const SLEEPS_MS = [0, 0, 300, 800];

/**
 * The fake model of a chaos run, one fake Responses server per fleet slot (so every request says which
 * process sent it). A unit's turn is asked for `steps` steps, each one `run_command` that sleeps a
 * little, then appends `<unit>/<step> <ms since the epoch>` to the ledger (call id `call_<step>`), then
 * for its final answer: `submit_result` in a task turn, text otherwise.
 */
export class ChaosModel {
  /** Every request for a chaos unit, in arrival order. */
  readonly requests: ModelRequestRecord[] = [];
  /** Units whose final answer was sent. */
  readonly finished = new Set<string>();
  /** Units that made at least one request. */
  readonly started = new Set<string>();
  /** When each answer goes out, by response id (the request's arrival plus its delay). */
  readonly answeredAt = new Map<string, number>();
  /** Requests whose prompt was not a chaos unit's (should stay 0). */
  strayRequests = 0;
  readonly #servers: FakeResponsesServer[] = [];
  readonly #listeners = new Set<(call: AnsweredCall) => void>();
  readonly #options: ChaosModelOptions;
  #count = 0;

  constructor(options: ChaosModelOptions) {
    this.#options = options;
  }

  /** Starts slot `slot`'s server; returns its base URL (`OPENAI_BASE_URL`). */
  async startSlot(slot: number): Promise<string> {
    const server = await startFakeResponsesServer({
      record: false,
      script: (request) => this.#answer(slot, request),
    });
    this.#servers.push(server);
    return server.baseURL;
  }

  /** Calls `listener` at every answer that carries a call; returns the function that stops it. */
  onAnsweredCall(listener: (call: AnsweredCall) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes every server. */
  async close(): Promise<void> {
    await Promise.all(this.#servers.map((server) => server.close()));
  }

  #answer(slot: number, request: FakeRequest): FakeResponse {
    const unit = PROMPT.exec(promptOf(request))?.[1];
    if (unit === undefined) {
      this.strayRequests += 1;
      return { text: 'not a chaos unit' };
    }
    const step = request.functionCallOutputs.length + 1;
    const at = Date.now();
    this.#count += 1;
    const responseId = `resp_chaos_${this.#count}`;
    this.requests.push({ unit, step, slot, at, responseId });
    this.started.add(unit);
    const { random, maxDelayMs, steps } = this.#options;
    const delayMs = Math.floor(random() * maxDelayMs);
    this.answeredAt.set(responseId, at + delayMs);
    if (step > steps) {
      this.finished.add(unit);
      if (unit.startsWith('task-')) {
        return {
          id: responseId,
          delayMs,
          functionCalls: [{ name: 'submit_result', arguments: { summary: unit }, callId: `call_${step}` }],
        };
      }
      return { id: responseId, delayMs, text: `done ${unit}` };
    }
    const sleepMs = SLEEPS_MS[Math.floor(random() * SLEEPS_MS.length)] ?? 0;
    const sleep = sleepMs === 0 ? '' : `sleep ${sleepMs / 1000}; `;
    // The line is the command's last act: a kill after it and before the output is recorded leaves
    // an effect whose call is in doubt, the case a resume must not run again.
    const command = `${sleep}echo "${unit}/${step} $(date +%s%3N)" >> ${LEDGER_FILE}`;
    for (const listener of this.#listeners) {
      listener({ unit, step, slot, answeredAt: at + delayMs, sleepMs });
    }
    return {
      id: responseId,
      delayMs,
      functionCalls: [{ name: 'run_command', arguments: { command }, callId: `call_${step}` }],
    };
  }
}

/** The text of the first user message of a request: the turn's prompt. */
function promptOf(request: FakeRequest): string {
  const input = request.body.input;
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  for (const item of input as Array<{ role?: string; content?: unknown }>) {
    if (item.role !== 'user') continue;
    if (typeof item.content === 'string') return item.content;
    if (Array.isArray(item.content)) {
      return (item.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
    }
  }
  return '';
}
