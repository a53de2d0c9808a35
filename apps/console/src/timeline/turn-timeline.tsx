import type { StreamEvent } from '../api/event-stream';
import { Fact, Facts } from '../ui/facts';
import { formatCount, formatDuration } from '../ui/format';
import { type TimelineStep, timelineOf } from './timeline-steps';

const KIND_WORDS: Record<TimelineStep['kind'], string> = {
  model: 'model',
  tool: 'tool',
  approval: 'waiting',
};

/** A step's outcome as the words beside its bar. */
function outcomeText(step: TimelineStep): string {
  if (step.running) return step.kind === 'approval' ? 'waiting' : 'running';
  return step.outcome ?? '';
}

/** One bar: where it starts and how long it is, as a share of the turn's axis. */
function Bar({ step, axisMs }: { step: TimelineStep; axisMs: number }) {
  const start = axisMs <= 0 ? 0 : (Math.max(0, step.startMs) / axisMs) * 100;
  const width = axisMs <= 0 ? 0 : (Math.max(0, step.endMs - step.startMs) / axisMs) * 100;
  return (
    <div class="timeline-track" aria-hidden="true">
      <div
        class={`timeline-bar timeline-${step.kind}${step.running ? ' timeline-running' : ''}`}
        // Set through the CSSOM (the CSP allows it; a style attribute it would not).
        style={{ left: `${Math.min(start, 100)}%`, width: `max(2px, ${Math.min(width, 100 - start)}%)` }}
      />
    </div>
  );
}

/**
 * A turn's timeline (a waterfall): each model request, tool call and wait for an approval as a bar
 * on one axis from the turn's start to its end (to now while it runs, so it grows live), with its
 * duration, tokens, outcome, repairs and marks; then the totals. Each row's accessible name says
 * the same as its bar: `Model request 1: from 0 ms, 212 ms, completed`.
 */
export function TurnTimeline({
  events,
  turnStart,
  turnEnd,
}: {
  /** The turn's events so far, as streamed. */
  events: readonly StreamEvent[];
  /** The turn's start (epoch milliseconds). */
  turnStart: number;
  /** Its end, or now while it runs (epoch milliseconds). */
  turnEnd: number;
}) {
  const timeline = timelineOf(events, turnStart, turnEnd);
  if ('missing' in timeline) {
    return (
      <p class="hint">
        {timeline.missing === 'no-times'
          ? 'No timeline: this turn’s events were recorded before events carried their times.'
          : 'No model request or tool call yet.'}
      </p>
    );
  }
  const { steps, totals } = timeline;
  const axisMs = Math.max(totals.durationMs, ...steps.map((step) => step.endMs));
  return (
    <>
      <ol class="timeline" aria-label="Timeline">
        {steps.map((step) => {
          const duration = formatDuration(step.endMs - step.startMs);
          const outcome = outcomeText(step);
          return (
            <li
              key={step.key}
              class="timeline-step"
              // The exact numbers behind the bar, for a script reading the page.
              data-start-ms={Math.round(step.startMs)}
              data-end-ms={Math.round(step.endMs)}
              aria-label={`${step.label}: from ${formatDuration(step.startMs)}, ${duration}, ${outcome}`}
            >
              <span class="timeline-label">
                <span class="timeline-kind">{KIND_WORDS[step.kind]}</span> {step.label}
                {step.tool === undefined ? null : <code class="tool"> {step.tool}</code>}
              </span>
              <Bar step={step} axisMs={axisMs} />
              <span class="timeline-numbers">
                <span class="duration">{duration}</span>
                {step.tokens === undefined ? null : (
                  <span>
                    {formatCount(step.tokens.input)} in, {formatCount(step.tokens.output)} out
                  </span>
                )}
                <span class="timeline-outcome">{outcome}</span>
                {step.repairs.length === 0 ? null : (
                  <span class="mark">repaired: {step.repairs.join(', ')}</span>
                )}
                {step.marks.map((mark) => (
                  <span key={mark} class="mark">
                    {mark}
                  </span>
                ))}
              </span>
            </li>
          );
        })}
      </ol>
      <Facts>
        <Fact label="Tokens in">{formatCount(totals.inputTokens)}</Fact>
        <Fact label="Tokens out">{formatCount(totals.outputTokens)}</Fact>
        <Fact label="Model time">{formatDuration(totals.modelMs)}</Fact>
        <Fact label="Tool time">{formatDuration(totals.toolMs)}</Fact>
        <Fact label="Waiting time">{formatDuration(totals.waitingMs)}</Fact>
        <Fact label="Other">{formatDuration(totals.otherMs)}</Fact>
      </Facts>
    </>
  );
}
