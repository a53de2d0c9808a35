import { randomUUID } from 'node:crypto';
import {
  ControlPlaneInputError,
  type StoredAnswer,
  type TurnRecord,
  type TurnSourceDetail,
} from '@switchyard/control-plane';
import { type DaemonTurnSnapshot, snapshotOf } from '../../daemon-turns';
import { definedFields } from '../../defined-fields';
import type { ApiContext } from '../api-context';
import { found, HttpError, lockLostError } from '../http-error';
import { type CreateRequest, registerStartRoute } from '../idempotent-answer';
import { nextCursorOf, pageOf, refusedQuery } from '../paging';
import { createResourceApp, errorResponse, idRoute, jsonResponse, NO_STORE } from '../route-builders';
import { refuseOtherMethods, registerGetById, registerList } from '../route-registrars';
import { SHARED_ERRORS } from '../shared-error-responses';
import { registerTurnEvents } from './turn-events-route';
import { TurnDetailSchema, TurnListSchema, TurnSchema, turnRequestSchemas } from './turn-schemas';

/** A turn's 202 (`Location` names it), as sent and as kept for an Idempotency-Key. */
const turnAnswer = (snapshot: DaemonTurnSnapshot): StoredAnswer => ({
  status: 202,
  headers: { location: `/v1/turns/${snapshot.id}` },
  body: JSON.stringify(snapshot),
});

/**
 * Records and starts a turn of `agent` (under `turnId` when a key's claim chose it), and gives its
 * snapshot: 400 for a prompt the records refuse, 503 while draining, after the lock was lost, or
 * when it could not be recorded.
 */
async function startTurn(
  { options }: ApiContext,
  request: { agent: string; prompt: string },
  turnId: string | undefined,
): Promise<DaemonTurnSnapshot> {
  const { turns } = options;
  let started: { id: string } | undefined;
  try {
    started = await options.startTurn(
      { agentId: request.agent, prompt: request.prompt, source: 'api' },
      turnId === undefined ? {} : { id: turnId },
    );
  } catch (error) {
    if (ControlPlaneInputError.isInstance(error)) {
      // The claim this one continues (of a slow process, not a dead one) recorded it meanwhile.
      const recorded = error.field === 'id' && turnId !== undefined ? await turns.find(turnId) : undefined;
      if (recorded !== undefined) return recorded;
      // A prompt the records refuse (a NUL character, a lone surrogate) is the client's to fix.
      throw new HttpError(400, 'invalid_body', error.message, [error.field]);
    }
    throw new HttpError(503, 'unavailable', 'the turn could not be recorded, so it was not started; retry');
  }
  if (started === undefined) {
    throw options.state() === 'lock-lost'
      ? lockLostError('turns')
      : new HttpError(503, 'draining', 'the daemon is shutting down and takes no new turns');
  }
  const snapshot = turns.get(started.id);
  if (snapshot === undefined)
    throw new HttpError(500, 'internal_error', 'the turn was started but is not known');
  return snapshot;
}

/** A turn with where it came from by name (`TurnSourceDetail`), when that is known. */
function withOrigin(turn: DaemonTurnSnapshot, origins: ReadonlyMap<string, TurnSourceDetail>) {
  const origin = origins.get(turn.id);
  return origin === undefined ? turn : { ...turn, origin };
}

/**
 * Whether a recorded turn has its end recorded: its record is then the truth (its end time is the
 * database's, its output as stored), and the API shows it so from any process, before and after this
 * one drops the turn from memory.
 */
const hasRecordedEnd = (record: TurnRecord) =>
  record.status !== 'running' && record.status !== 'waiting-approval' && record.status !== 'interrupted';

/** `POST /v1/turns` in the document, with the body `requestSchema`. */
const startTurnRoute = (requestSchema: ReturnType<typeof turnRequestSchemas>['turnRequest']) => ({
  text: {
    operationId: 'startTurn',
    path: '/v1/turns',
    summary: 'Start a turn',
    description:
      'Send an `Idempotency-Key` header to start one turn however often the request is retried, from any process on the same database.',
  },
  body: requestSchema,
  started: {
    status: 202 as const,
    description: 'Recorded and started; `Location` names it',
    schema: TurnSchema,
  },
  unavailable:
    'Over the bound of waiting work (serve.maxWaitingWork, with Retry-After), draining, the embedded database’s lock was lost, or the turn could not be recorded: nothing runs',
});

/** `POST /v1/turns`: record and start a turn of `body.agent` (or the default agent), once per key. */
function turnStart(context: ApiContext, body: { agent?: string | undefined; prompt: string }): CreateRequest {
  const { options } = context;
  const request = { agent: body.agent ?? options.defaultAgent, prompt: body.prompt };
  return {
    agent: request.agent,
    operation: 'start-turn',
    newResourceId: () => `turn_${randomUUID()}`,
    create: async (turnId, takenOver) => {
      // A claim continued from a process that died (or is slow) after recording the turn: that turn.
      const recorded = turnId !== undefined && takenOver ? await options.turns.find(turnId) : undefined;
      return turnAnswer(recorded ?? (await startTurn(context, request, turnId)));
    },
  };
}

/**
 * The turns' sub-app: start (`POST /v1/turns`), list, read, follow (`/v1/turns/{id}/events`) and
 * cancel the turns of the agents served, whichever process runs or ran them.
 */
export function createTurnsApp(context: ApiContext) {
  const { options } = context;
  const { turns, controlPlane } = options;
  const schemas = turnRequestSchemas(context.fields);
  const app = createResourceApp();
  registerStartRoute(app, options, startTurnRoute(schemas.turnRequest), (body) => turnStart(context, body));

  registerList(
    app,
    {
      operationId: 'listTurns',
      path: '/v1/turns',
      summary: 'Recorded turns of the agents served, newest first',
      description:
        'Filtered by agent, status, source, text in the prompt and a time range; each field the query gets wrong is named in the 400.',
    },
    schemas.turnsQuery,
    { description: 'A page of turns', schema: TurnListSchema },
    async (query) => {
      const page = await controlPlane.turns
        .page({
          agentIds: context.served(query.agent),
          ...definedFields(query, ['status', 'source', 'text', 'createdAfter', 'createdBefore']),
          ...pageOf(query),
        })
        .catch(refusedQuery);
      const origins = await controlPlane.turns.sources(page.turns);
      const snapshots = await Promise.all(
        page.turns.map(
          async (record) =>
            (hasRecordedEnd(record) ? snapshotOf(record) : undefined) ??
            turns.get(record.id) ??
            // Waiting elsewhere (or let go): `find` adds the usage its checkpoint holds.
            (record.status === 'waiting-approval' ? await turns.find(record.id) : undefined) ??
            snapshotOf(record),
        ),
      );
      return {
        turns: snapshots.map((snapshot) => withOrigin(snapshot, origins)),
        ...nextCursorOf(page.next),
      };
    },
  );

  /** A recorded turn of an agent this daemon serves, whichever process runs or ran it; 404 otherwise. */
  const findTurn = async (id: string) => {
    const turn = await turns.find(id);
    return found(turn !== undefined && context.serves(turn.agent) ? turn : undefined, 'turn', id);
  };

  registerGetById(
    app,
    { operationId: 'getTurn', path: '/v1/turns/{id}', summary: 'One turn, whichever process ran it' },
    SHARED_ERRORS.noTurn.ref,
    { description: 'The turn, with its whole prompt', schema: TurnDetailSchema },
    async (id) => {
      const turn = await findTurn(id);
      // Read after the snapshot: a turn found is recorded, and its prompt never changes.
      const record = await controlPlane.turns.get(id);
      if (record === undefined) return { ...turn, prompt: '' };
      const shown = hasRecordedEnd(record) ? snapshotOf(record) : turn;
      return {
        ...withOrigin(shown, await controlPlane.turns.sources([record])),
        prompt: record.prompt,
        workerId: record.workerId,
        eventsRecorded: (await controlPlane.turns.eventCount(id)) ?? 0,
        eventsDropped: record.eventsDropped,
      };
    },
  );

  registerTurnEvents(app, context, findTurn);

  app.openapi(
    idRoute(
      'post',
      {
        operationId: 'cancelTurn',
        path: '/v1/turns/{id}/cancel',
        summary: 'Cancel a turn, whichever process runs it',
        description:
          'This process aborts its own turn at once; another process aborts its turn at its next heartbeat; a turn waiting for approval whose process is gone is ended by the next process that looks. Every pending call gets a "cancelled" output. Cancelling a task or job turn fails that attempt like any aborted turn (the unit is retried by its policy): cancel the workflow to stop the work.',
      },
      SHARED_ERRORS.noTurn.ref,
      {
        202: jsonResponse('Cancellation asked for', TurnSchema),
        409: errorResponse('The turn has already ended'),
      },
    ),
    async (c) => {
      const { id } = c.req.valid('param');
      const before = await findTurn(id);
      if (before.status !== 'running' && before.status !== 'waiting-approval') {
        throw new HttpError(409, 'turn_ended', `turn '${id}' has already ended (${before.status})`);
      }
      const reason = 'cancelled through the API';
      const record = await controlPlane.turns.requestCancel(id, reason);
      turns.cancel(id, reason);
      const after = turns.get(id) ?? (record === undefined ? before : snapshotOf(record));
      return c.json(after, 202, NO_STORE);
    },
  );

  refuseOtherMethods(app, [
    ['/v1/turns', ['GET', 'POST']],
    ['/v1/turns/:id', ['GET']],
    ['/v1/turns/:id/events', ['GET']],
    ['/v1/turns/:id/cancel', ['POST']],
  ]);
  return app;
}
