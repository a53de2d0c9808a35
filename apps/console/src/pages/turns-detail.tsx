import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, type Schema, unwrap } from '../api/client';
import type { StreamEvent } from '../api/event-stream';
import { followEventStream, type StreamState, useLiveEvents } from '../api/live-events';
import { usePendingApprovals } from '../api/pending-approvals';
import { useCanWrite, useSession } from '../session';
import { TurnTimeline } from '../timeline/turn-timeline';
import { Collapsed } from '../ui/collapsed';
import { ErrorAlert } from '../ui/error-alert';
import { Fact, Facts } from '../ui/facts';
import { formatCount, formatDuration, formatJson, turnDuration } from '../ui/format';
import { useNow } from '../ui/now';
import { StatusText } from '../ui/status-text';
import { StreamStateText } from '../ui/stream-state-text';
import { TurnSource } from '../ui/turn-source';
import { useAction } from '../ui/use-action';
import { useResource } from '../ui/use-resource';
import { isActive, type Turn } from './turns';

type ToolCallEnd = Schema<'ToolCallEndEvent'>;
type Approval = Schema<'Approval'>;

/** One tool call of the turn: its start, and its end once it has one. */
interface CallItem {
  kind: 'call';
  /** Tells the calls of the turn apart (`callKey`): a call id may come again in a later response. */
  key: string;
  callId: string;
  name: string;
  activity: string;
  params: unknown;
  repairs: string[];
  progress?: string;
  end?: ToolCallEnd;
}

/** What the turn's page lists, in the order it happened. */
type Item =
  | { kind: 'text'; iteration: number; text: string }
  | CallItem
  | { kind: 'approval'; phase: 'requested' | 'resolved'; approval: Approval; answered?: boolean }
  | { kind: 'takeover' };

interface TurnLog {
  items: Item[];
  /** Every event as streamed: the timeline is drawn from their times. */
  events: StreamEvent[];
  turnStarts: number;
  ended: boolean;
}

const EMPTY: TurnLog = { items: [], events: [], turnStarts: 0, ended: false };

/**
 * A call's key in the log: its item in the turn's transcript, unique within the turn, or its call id
 * for events recorded before events carried the item.
 */
function callKey(data: { itemIndex?: unknown; callId?: unknown }): string {
  return typeof data.itemIndex === 'number' ? `item:${data.itemIndex}` : `call:${String(data.callId)}`;
}

// For events recorded before `tool-call-end` carried `refusal`: the id of a refusal of the argument
// ladder, from the message core wrote for the model (`Could not read the arguments for tool 'x'
// (invalid-json; nothing was run):`). Linear: no nested quantifiers, and only the first line is read.
const REFUSAL = /^Could not read the arguments for tool '[^'\n]*' \(([a-z-]+);/;

/** Why the arguments of an `invalid-arguments` call were refused, as core's kebab-case id. */
export function refusalOf(end: ToolCallEnd): string | undefined {
  if (end.outcome !== 'invalid-arguments') return undefined;
  if (typeof end.refusal === 'string') return end.refusal;
  const content = outputText(end);
  return (
    REFUSAL.exec(content.slice(0, content.indexOf('\n') + 1 || content.length))?.[1] ?? 'invalid-arguments'
  );
}

/** A call's output as the model saw it: text, or the content parts as JSON. */
function outputText(end: ToolCallEnd): string {
  const content = end.result.content;
  if (typeof content === 'string') return content;
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : formatJson(part),
    )
    .join('\n');
}

/** Folds one event of the turn's stream into what the page shows. */
function reduce(log: TurnLog, event: StreamEvent): TurnLog {
  return { ...reduceItems(log, event), events: [...log.events, event] };
}

/** The held call a call's key names, when one was asked about in this turn. */
function heldCall(log: TurnLog, key: string): Approval | undefined {
  for (const item of log.items) {
    if (item.kind !== 'approval' || item.phase !== 'requested') continue;
    const { approval } = item;
    if (callKey({ itemIndex: approval.callIndex, callId: approval.callId }) === key) return approval;
  }
  return undefined;
}

function reduceItems(log: TurnLog, event: StreamEvent): TurnLog {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'turn-start':
      return {
        ...log,
        turnStarts: log.turnStarts + 1,
        // A second `turn-start`: another process took the turn over after its approval.
        items: log.turnStarts > 0 ? [...log.items, { kind: 'takeover' }] : log.items,
      };
    case 'text-delta': {
      const iteration = Number(data.iteration);
      const last = log.items.at(-1);
      if (last?.kind === 'text' && last.iteration === iteration) {
        return {
          ...log,
          items: [...log.items.slice(0, -1), { ...last, text: last.text + String(data.delta) }],
        };
      }
      return { ...log, items: [...log.items, { kind: 'text', iteration, text: String(data.delta) }] };
    }
    case 'tool-call-start':
      return {
        ...log,
        items: [
          ...log.items,
          {
            kind: 'call',
            key: callKey(data),
            callId: String(data.callId),
            name:
              data.namespace === undefined
                ? String(data.name)
                : `${String(data.namespace)}.${String(data.name)}`,
            activity: String(data.activity),
            params: data.params,
            repairs: Array.isArray(data.repairs) ? data.repairs.map(String) : [],
          },
        ],
      };
    case 'tool-call-progress':
      return updateCall(log, callKey(data), (call) => {
        const progress = data.progress as { message?: string; completed?: number; total?: number };
        const counted =
          progress.completed === undefined
            ? ''
            : ` (${progress.completed}${progress.total === undefined ? '' : ` of ${progress.total}`})`;
        return { ...call, progress: `${progress.message ?? ''}${counted}`.trim() };
      });
    case 'tool-call-end': {
      const end = event.data as ToolCallEnd;
      const key = callKey(end);
      const known = log.items.some((item) => item.kind === 'call' && item.key === key);
      if (!known) {
        // A call that never started (unknown tool, refused arguments, skipped, denied) has only its
        // end, whose activity is the tool's name: a denied call's label and arguments are its approval's.
        const held = heldCall(log, key);
        return {
          ...log,
          items: [
            ...log.items,
            {
              kind: 'call',
              key,
              callId: end.callId,
              name: end.namespace === undefined ? end.name : `${end.namespace}.${end.name}`,
              activity: held?.activity ?? end.activity,
              params: held?.arguments,
              repairs: end.repairs,
              end,
            },
          ],
        };
      }
      return updateCall(log, key, (call) => ({
        ...call,
        activity: end.activity,
        repairs: end.repairs,
        end,
      }));
    }
    case 'approval-requested':
    case 'approval-resolved':
      return {
        ...log,
        items: [
          // Once answered, the request no longer sends the operator to the Approvals page.
          ...(event.type === 'approval-resolved'
            ? log.items.map((item) =>
                item.kind === 'approval' && item.approval.id === (data.approval as Approval).id
                  ? { ...item, answered: true }
                  : item,
              )
            : log.items),
          {
            kind: 'approval',
            phase: event.type === 'approval-requested' ? 'requested' : 'resolved',
            approval: data.approval as Approval,
          },
        ],
      };
    case 'turn-end':
      return { ...log, ended: true };
    default:
      return log;
  }
}

function updateCall(log: TurnLog, key: string, change: (call: CallItem) => CallItem): TurnLog {
  return {
    ...log,
    items: log.items.map((item) => (item.kind === 'call' && item.key === key ? change(item) : item)),
  };
}

/** `#/turns/<id>`: the turn's header and its events as they stream. */
export function TurnPage({ id }: { id: string }) {
  const canWrite = useCanWrite();
  const {
    value: turn,
    error,
    reload: loadTurn,
    set: setTurn,
  } = useResource((signal) => unwrap(api.GET('/v1/turns/{id}', { params: { path: { id } }, signal })), [id]);
  const [log, setLog] = useState<TurnLog>(EMPTY);
  const [stream, setStream] = useState<{ state: StreamState; error?: string }>({ state: 'connecting' });
  const cancelling = useAction();

  useEffect(() => {
    setLog(EMPTY);
    const controller = new AbortController();
    let ended = false;
    // The stream replays every event so far on each connection: a reconnection starts from scratch.
    const ends = new AbortController();
    void followEventStream(
      `/v1/turns/${encodeURIComponent(id)}/events`,
      {
        onOpen: () => setLog(EMPTY),
        onEvent: (event) => {
          setLog((current) => reduce(current, event));
          if (event.type === 'turn-end') {
            ended = true;
            loadTurn();
          }
        },
      },
      AbortSignal.any([controller.signal, ends.signal]),
      (state, failure) => {
        // After `turn-end` the daemon ends the stream: that is the end, not a break.
        if (ended) {
          ends.abort();
          setStream({ state: 'live' });
          return;
        }
        setStream(failure === undefined ? { state } : { state, error: failure });
      },
    );
    return () => controller.abort();
  }, [id]);

  useLiveEvents({
    onEvent: (event) => {
      // The feed's turns carry no prompt: the one read first stays.
      if (event.type === 'turn' && (event.data as Turn).id === id) {
        setTurn((current) => ({ prompt: '', ...current, ...(event.data as Turn) }));
      }
    },
  });

  const now = useNow(turn !== undefined && isActive(turn));

  const cancel = () =>
    cancelling.run(unwrap(api.POST('/v1/turns/{id}/cancel', { params: { path: { id } } })), (cancelled) =>
      // The answer may come after the turn's end was read: it never makes an ended turn running again.
      setTurn((current) =>
        current !== undefined && !isActive(current) ? current : { prompt: '', ...current, ...cancelled },
      ),
    );

  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <Link href="/turns">Turns</Link>
      </p>
      <div class="page-head">
        <h1 id="page-title">{turn === undefined || turn.title === '' ? `Turn ${id}` : turn.title}</h1>
        {turn !== undefined && isActive(turn) && canWrite ? (
          <button type="button" class="danger" onClick={cancel} disabled={cancelling.busy}>
            {cancelling.busy ? 'Cancelling…' : 'Cancel turn'}
          </button>
        ) : null}
      </div>
      <ErrorAlert context="Could not cancel: " error={cancelling.error} />
      <ErrorAlert error={error} />
      <p class="id">{id}</p>
      {turn === undefined ? null : <TurnFacts turn={turn} now={now} />}
      <h2>Timeline</h2>
      {turn === undefined ? null : (
        <TurnTimeline
          events={log.events}
          turnStart={Date.parse(turn.createdAt)}
          turnEnd={turn.endedAt === undefined ? now : Date.parse(turn.endedAt)}
        />
      )}
      <div class="page-head">
        <h2>Events</h2>
        <output class="live-state">
          {log.ended ? 'ended' : <StreamStateText state={stream.state} error={stream.error} />}
        </output>
      </div>
      <ol class="events">
        {log.items.map((item, index) => (
          <li key={index} class={`event event-${item.kind}`}>
            <EventItem item={item} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The turn's header: status, agent, source, duration, tokens, its whole prompt and its error. */
function TurnFacts({ turn, now }: { turn: Schema<'TurnDetail'>; now: number }) {
  return (
    <Facts>
      <Fact label="Status">
        <StatusText status={turn.status} />
        {turn.status === 'waiting-approval' ? <ContinuesHint turnId={turn.id} /> : null}
      </Fact>
      <Fact label="Agent">{turn.agent}</Fact>
      <Fact label="Source">
        <TurnSource turn={turn} />
      </Fact>
      <Fact label="Duration">{formatDuration(turnDuration(turn, now))}</Fact>
      <Fact label="Tokens">
        {formatCount(turn.usage.totalTokens)} ({formatCount(turn.usage.inputTokens)} in,{' '}
        {formatCount(turn.usage.outputTokens)} out)
      </Fact>
      {turn.limitedBy === undefined ? null : <Fact label="Limited by">{turn.limitedBy.join(', ')}</Fact>}
      <Fact label="Prompt" wide>
        <pre class="prompt">{turn.prompt}</pre>
      </Fact>
      {turn.error === undefined ? null : (
        <Fact label="Error" wide>
          <span class="error">{turn.error}</span>
        </Fact>
      )}
    </Facts>
  );
}

/**
 * Beside a turn still `waiting-approval` none of whose approvals is pending any more: it was let go
 * (at shutdown, or its process stopped) or is held by another process, and a daemon continues it
 * within the time the session gives. Nothing while the pending list is loading or holds more than it
 * shows, since then an approval of this turn may still be pending.
 */
function ContinuesHint({ turnId }: { turnId: string }) {
  const pending = usePendingApprovals();
  const { continueAnsweredWithinMs } = useSession();
  if (pending.approvals === undefined || pending.more) return null;
  if (pending.approvals.some((approval) => approval.turnId === turnId)) return null;
  return (
    <span class="hint"> (answered: continues within {Math.ceil(continueAnsweredWithinMs / 1000)} s)</span>
  );
}

function EventItem({ item }: { item: Item }) {
  if (item.kind === 'text') return <p class="model-text">{item.text}</p>;
  if (item.kind === 'takeover') return <p class="hint">Continued by another process after its approval.</p>;
  if (item.kind === 'approval') {
    const { approval } = item;
    return item.phase === 'requested' ? (
      <p>
        Approval requested: <strong>{approval.activity}</strong> ({approval.toolKey})
        {item.answered === true ? null : (
          <>
            {' '}
            — <Link href="/approvals">answer it on the Approvals page</Link>
          </>
        )}
      </p>
    ) : (
      <p>
        Approval {approval.status}
        {approval.answeredBy === undefined ? '' : ` by ${approval.answeredBy}`}: {approval.activity}
        {approval.reason === undefined ? '' : ` — ${approval.reason}`}
      </p>
    );
  }
  const { end } = item;
  const refusal = end === undefined ? undefined : refusalOf(end);
  return (
    <article class="call" aria-label={`Tool call: ${item.activity}`}>
      <div class="call-head">
        <span class="activity">{item.activity}</span>
        <code class="tool">{item.name}</code>
        {end === undefined ? (
          <span class="status status-busy">running{item.progress ? `: ${item.progress}` : ''}</span>
        ) : (
          <StatusText status={end.outcome} />
        )}
        {end === undefined ? null : <span class="duration">{formatDuration(end.durationMs)}</span>}
        {item.repairs.length === 0 ? null : <span class="mark">repaired: {item.repairs.join(', ')}</span>}
        {refusal === undefined ? null : <span class="mark">refused: {refusal}</span>}
        {end?.replayed === true ? <span class="mark">from the journal: not run again</span> : null}
        {end?.inDoubt === true ? <span class="mark">in doubt: its worker stopped while it ran</span> : null}
      </div>
      {item.params === undefined ? null : (
        <Collapsed summary="Arguments">{formatJson(item.params)}</Collapsed>
      )}
      {end === undefined ? null : <Collapsed summary="Output">{outputText(end)}</Collapsed>}
    </article>
  );
}
