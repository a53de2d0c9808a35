import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { AgentUsage, ToolCallEndEvent } from '../events/agent-event';

/**
 * A model response as a turn's journal keeps it: what a resumed turn uses instead of asking the
 * model again for that step.
 */
export interface JournalResponse {
  /** The step: the 1-based iteration of the turn. */
  iteration: number;
  /** The response's id. */
  id: string;
  /** The items the response added to the transcript (its replayable output, its messages' text included). */
  items: ResponseInputItem[];
  /** Its usage (paid once: a replay does not pay it again, but the turn counts it). */
  usage: AgentUsage;
  /** `incomplete_details.reason`, when the response was cut off. */
  finishReason?: string;
  /**
   * Starts of the response's calls recorded with it, in the same entry: those that run at once when
   * the response is dispatched (its first call, or its leading parallel calls within the turn's
   * `maxParallelCalls`) and whose tool is read-only or idempotent. Such a call in doubt runs again
   * anyway, so recording its start a moment early changes nothing on a resume, and saves the turn a
   * write of its own before the call runs. A store keeps the entry whole; `JournalReplay` reads them.
   */
  started?: JournalCallStart[];
}

/** A call about to run: recorded before its `execute` starts. */
export interface JournalCallStart {
  /** Where the call's item sits in the transcript (`ToolCallRequest.itemIndex`): the call's key. */
  itemIndex: number;
  /** The call's `call_id`, as the endpoint sent it. */
  callId: string;
  /** The tool's key (`namespace.name`, or `name`). */
  key: string;
  /** The key `execute` gets as `context.idempotencyKey`. */
  idempotencyKey: string;
}

/** A call's output: recorded before the loop goes on with it. */
export interface JournalCallOutput {
  /** Where the call's item sits in the transcript. */
  itemIndex: number;
  /** The call's `call_id`. */
  callId: string;
  /** The `function_call_output` item the model reads. */
  output: ResponseInputItem.FunctionCallOutput;
  /** The call's `tool-call-end` event, but for its result (the output holds what the model read). */
  end: Omit<ToolCallEndEvent, 'result'>;
  /** The result ended the turn. */
  endsTurn: boolean;
  /** The result's `loadsTools` (deferred tools it loaded). */
  loadsTools: readonly string[];
}

/** What earlier attempts of a turn recorded in its journal: the steps a resumed turn does not redo. */
export interface RecordedTurn {
  /** Model responses, one per step, in order. */
  responses: readonly JournalResponse[];
  /**
   * Calls recorded as started (a start without an output is a call in doubt); the starts a response
   * entry carries (`JournalResponse.started`) count as well, whether or not they are listed here.
   */
  started: readonly JournalCallStart[];
  /** Calls' outputs. */
  outputs: readonly JournalCallOutput[];
}

/**
 * A turn's journal, written by the loop before it moves on, so that a turn whose process stopped can
 * be continued from it by another one (`runAgentLoop({ journal })` with `recorded` set): recorded
 * responses are replayed, never requested again; recorded outputs are reused, never run again; a
 * call recorded as started without an output is in doubt. Core keeps no database: the control plane
 * implements it.
 *
 * Contract: each method resolves once its entry is stored, and the loop awaits it before it acts on
 * it: a response before its calls run, a start before its call runs, an output before the next call
 * of a sequential run starts and before the next request is sent (the last output of a response is
 * written while the turn's budget is asked, and a response while the budget is told its usage:
 * the two wait together rather than one after the other); a method that rejects ends the turn
 * `failed` with that error (a journal the process can no longer write to, such as one whose turn
 * another worker took over, stops the turn rather than letting it act unrecorded). A response entry
 * may carry the starts of calls (`JournalResponse.started`): those calls get no `callStarted` of
 * their own, so a store must keep the entry whole (one write: the response and those starts land
 * together or not at all).
 *
 * @example
 * const journal: TurnJournal = {
 *   recorded: await store.read(turnId),
 *   response: (entry) => store.append(turnId, 'response', entry),
 *   callStarted: (entry) => store.append(turnId, 'call-start', entry),
 *   callFinished: (entry) => store.append(turnId, 'call-output', entry),
 * };
 * const run = runAgentLoop({ model, tools, input: prompt, journal, turnId });
 */
export interface TurnJournal {
  /** What earlier attempts of this turn recorded; absent for a new turn. */
  recorded?: RecordedTurn;
  /** Records a model response, before its calls run. */
  response(entry: JournalResponse): Promise<void>;
  /** Records that a call is about to run, before its `execute` starts. */
  callStarted(entry: JournalCallStart): Promise<void>;
  /** Records a call's output (a cancelled call's is not recorded: it runs again on a resume). */
  callFinished(entry: JournalCallOutput): Promise<void>;
}

/** What a resumed turn finds in its journal, by step and by call. */
export class JournalReplay {
  readonly #responses = new Map<number, JournalResponse>();
  readonly #started = new Map<number, JournalCallStart>();
  readonly #outputs = new Map<number, JournalCallOutput>();

  constructor(recorded: RecordedTurn | undefined) {
    for (const response of recorded?.responses ?? []) {
      this.#responses.set(response.iteration, response);
      for (const start of response.started ?? []) this.#started.set(start.itemIndex, start);
    }
    for (const start of recorded?.started ?? []) this.#started.set(start.itemIndex, start);
    for (const output of recorded?.outputs ?? []) this.#outputs.set(output.itemIndex, output);
  }

  /** The recorded response of `iteration`, if an earlier attempt got one. */
  response(iteration: number): JournalResponse | undefined {
    return this.#responses.get(iteration);
  }

  /** The recorded output of the call at `itemIndex`, if an earlier attempt finished it. */
  output(itemIndex: number): JournalCallOutput | undefined {
    return this.#outputs.get(itemIndex);
  }

  /** The idempotency key an earlier attempt ran the call at `itemIndex` with, if one started it. */
  startedKey(itemIndex: number): string | undefined {
    return this.#started.get(itemIndex)?.idempotencyKey;
  }

  /** Whether the call at `itemIndex` was started and never finished: its effect is unknown. */
  inDoubt(itemIndex: number): boolean {
    return this.#started.has(itemIndex) && !this.#outputs.has(itemIndex);
  }
}
