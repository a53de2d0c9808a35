import type { StreamEvent } from '../api/event-stream';

/** One bar of a turn's timeline: a model request, a tool call or a call's wait for its approval. */
export interface TimelineStep {
  /** Tells the steps apart. */
  key: string;
  kind: 'model' | 'tool' | 'approval';
  /** What the bar is: `Model request 2`, a call's activity, `Waiting for approval: …`. */
  label: string;
  /** The tool (`read_file`, `server.tool`), for a call or its wait. */
  tool?: string;
  /** Milliseconds from the turn's start to the step's start. */
  startMs: number;
  /** Milliseconds from the turn's start to its end (to now while it runs). */
  endMs: number;
  /** Still under way. */
  running: boolean;
  /** How it ended: a call's outcome, an approval's answer, a request's finish reason or `completed`. */
  outcome?: string;
  /** A model request's tokens. */
  tokens?: { input: number; output: number };
  /** The argument ladder's repairs of a call. */
  repairs: string[];
  /** `replayed` (from the journal, not run again), `in doubt`. */
  marks: string[];
}

/** What a turn's timeline adds up to. */
export interface TimelineTotals {
  inputTokens: number;
  outputTokens: number;
  /** Time with a model request under way. */
  modelMs: number;
  /** Time with at least one tool call running (parallel calls counted once). */
  toolMs: number;
  /** Time with at least one call waiting for its approval. */
  waitingMs: number;
  /** The rest of the turn: the daemon's own work between steps. */
  otherMs: number;
  /** The turn's whole duration (to now while it runs). */
  durationMs: number;
}

/** A turn's timeline, or why there is none. */
export type Timeline =
  | { steps: TimelineStep[]; totals: TimelineTotals }
  | { missing: 'no-times' | 'no-steps' };

interface Data {
  [field: string]: unknown;
}

const callKey = (data: Data) =>
  typeof data.itemIndex === 'number' ? `item:${data.itemIndex}` : `call:${String(data.callId)}`;
const toolName = (data: Data) =>
  data.namespace === undefined ? String(data.name) : `${String(data.namespace)}.${String(data.name)}`;

/** The summed length of intervals, each overlap counted once (sorted by start first). */
function unionMs(intervals: Array<[number, number]>): number {
  const sorted = intervals.toSorted((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const [start, end] of sorted) {
    if (end <= reach) continue;
    total += end - Math.max(start, reach);
    reach = end;
  }
  return total;
}

/** What `timelineOf` builds as it reads a turn's events. */
interface TimelineState {
  steps: Map<string, TimelineStep>;
  // The activity of each held call, by its call's key: a denied call never started, and its end
  // names only the tool.
  heldActivity: Map<string, string>;
  tokens: { input: number; output: number };
  /** The turn's end (or now), from its start. */
  end: number;
}

/** Folds one timed event (`time`: milliseconds from the turn's start) into the steps. */
/** A step that starts at `startMs` and runs until its end event (to the turn's end until then). */
function startStep(
  state: TimelineState,
  step: Pick<TimelineStep, 'key' | 'kind' | 'label' | 'tool' | 'startMs'> & { repairs?: string[] },
): void {
  state.steps.set(step.key, {
    ...step,
    endMs: state.end,
    running: true,
    repairs: step.repairs ?? [],
    marks: [],
  });
}

function applyEvent(state: TimelineState, event: StreamEvent, data: Data, time: number): void {
  switch (event.type) {
    case 'model-request-start': {
      const key = `model:${String(data.iteration)}`;
      startStep(state, {
        key,
        kind: 'model',
        label: `Model request ${String(data.iteration)}`,
        startMs: time,
      });
      break;
    }
    case 'model-request-end': {
      const step = state.steps.get(`model:${String(data.iteration)}`);
      const usage = (data.usage ?? {}) as { inputTokens?: number; outputTokens?: number };
      state.tokens.input += usage.inputTokens ?? 0;
      state.tokens.output += usage.outputTokens ?? 0;
      if (step === undefined) break;
      step.endMs = time;
      step.running = false;
      step.outcome = typeof data.finishReason === 'string' ? data.finishReason : 'completed';
      step.tokens = { input: usage.inputTokens ?? 0, output: usage.outputTokens ?? 0 };
      if (data.replayed === true) step.marks.push('replayed');
      break;
    }
    case 'approval-requested': {
      const approval = (data.approval ?? {}) as Data;
      const key = `approval:${String(approval.id)}`;
      state.heldActivity.set(
        callKey({ itemIndex: approval.callIndex, callId: approval.callId }),
        String(approval.activity),
      );
      startStep(state, {
        key,
        kind: 'approval',
        label: `Waiting for approval: ${String(approval.activity)}`,
        tool: String(approval.toolKey),
        startMs: time,
      });
      break;
    }
    case 'approval-resolved': {
      const approval = (data.approval ?? {}) as Data;
      const step = state.steps.get(`approval:${String(approval.id)}`);
      if (step === undefined) break;
      step.endMs = time;
      step.running = false;
      step.outcome = String(approval.status);
      break;
    }
    case 'tool-call-start': {
      const key = `tool:${callKey(data)}`;
      startStep(state, {
        key,
        kind: 'tool',
        label: String(data.activity),
        tool: toolName(data),
        startMs: time,
        repairs: Array.isArray(data.repairs) ? data.repairs.map(String) : [],
      });
      break;
    }
    case 'tool-call-end': {
      const key = `tool:${callKey(data)}`;
      const started = state.steps.get(key);
      const durationMs = typeof data.durationMs === 'number' ? data.durationMs : 0;
      const step: TimelineStep = started ?? {
        // A call that never started (refused, denied, unknown) ends where it was decided.
        key,
        kind: 'tool',
        label: String(data.activity),
        tool: toolName(data),
        startMs: time - durationMs,
        endMs: time,
        running: false,
        repairs: [],
        marks: [],
      };
      step.label =
        started === undefined
          ? (state.heldActivity.get(callKey(data)) ?? String(data.activity))
          : String(data.activity);
      step.endMs = time;
      step.running = false;
      step.outcome = String(data.outcome);
      if (Array.isArray(data.repairs)) step.repairs = data.repairs.map(String);
      if (data.replayed === true) step.marks.push('replayed');
      if (data.inDoubt === true) step.marks.push('in doubt');
      state.steps.set(key, step);
      break;
    }
    default:
      break;
  }
}

/**
 * The timeline of a turn from its events' times (`at`), on one axis from `turnStart`: a bar for each
 * model request, each tool call and each wait for an approval, in the order they started; a step
 * that has not ended reaches `turnEnd` (the turn's end, or now while it runs). Linear in the events,
 * but for one sort of the steps.
 */
export function timelineOf(events: readonly StreamEvent[], turnStart: number, turnEnd: number): Timeline {
  const at = (data: Data) => (typeof data.at === 'string' ? Date.parse(data.at) - turnStart : undefined);
  let timed = false;
  const end = turnEnd - turnStart;
  const state: TimelineState = {
    steps: new Map(),
    heldActivity: new Map(),
    tokens: { input: 0, output: 0 },
    end,
  };
  const { steps } = state;
  for (const event of events) {
    const data = (event.data ?? {}) as Data;
    const time = at(data);
    if (time === undefined || Number.isNaN(time)) continue;
    timed = true;
    applyEvent(state, event, data, time);
  }
  if (!timed) return { missing: 'no-times' };
  if (steps.size === 0) return { missing: 'no-steps' };
  const ordered = [...steps.values()].toSorted((a, b) => a.startMs - b.startMs);
  const spans = (kind: TimelineStep['kind']) =>
    ordered
      .filter((step) => step.kind === kind)
      .map((step): [number, number] => [step.startMs, Math.max(step.startMs, step.endMs)]);
  const modelMs = unionMs(spans('model'));
  const toolMs = unionMs(spans('tool'));
  const waitingMs = unionMs(spans('approval'));
  const durationMs = Math.max(end, 0);
  return {
    steps: ordered,
    totals: {
      inputTokens: state.tokens.input,
      outputTokens: state.tokens.output,
      modelMs,
      toolMs,
      waitingMs,
      otherMs: Math.max(0, durationMs - unionMs([...spans('model'), ...spans('tool'), ...spans('approval')])),
      durationMs,
    },
  };
}
