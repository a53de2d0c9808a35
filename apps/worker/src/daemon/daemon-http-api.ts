import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { createRoute, OpenAPIHono, type RouteConfig, type z } from '@hono/zod-openapi';
import { type ApprovalRecord, type ControlPlane, ControlPlaneInputError } from '@switchyard/control-plane';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { CommandSandboxReport } from '../config/command-sandbox';
import { httpTraceMiddleware } from '../telemetry/http-trace-middleware';
import type { ToolManifest } from '../tool-manifest';
import {
  AnswerSchema,
  ApprovalArgumentsSchema,
  ApprovalListSchema,
  ApprovalSchema,
  agentSchemas,
  ErrorSchema,
  HealthSchema,
  IdParamSchema,
  ScheduleListSchema,
  SessionSchema,
  ToolCallEndEventSchema,
  ToolManifestSchema,
  TurnListSchema,
  TurnSchema,
  WorkflowListSchema,
  WorkflowSchema,
} from './api/api-schemas';
import { EventFeed, type FeedMessage } from './api/event-feed';
import { checkBearerToken } from './check-bearer-token';
import type { ConsoleSite } from './console-files';
import { approvalView } from './daemon-approvals';
import { type DaemonTurnEvent, type DaemonTurnRequest, type DaemonTurns, snapshotOf } from './daemon-turns';
import { definedFields } from './defined-fields';
import type { RequestRefusal } from './request-guard';

/** What the HTTP API needs from the daemon. */
export interface DaemonHttpApiOptions {
  /** The daemon's turns. */
  turns: DaemonTurns;
  /** Records and starts an API turn; undefined while draining (the daemon takes no new turns). */
  startTurn(request: DaemonTurnRequest): Promise<{ id: string } | undefined>;
  /** The control plane: turn records, approvals, workflows and schedules of the agents served. */
  controlPlane: Pick<ControlPlane, 'turns' | 'approvals' | 'workflows' | 'schedules'>;
  /**
   * The tool manifest an agent's next text turn would send (`buildToolManifest`), for
   * `GET /v1/tools`; without it that route answers 501.
   */
  toolManifest?: (agent: string) => ToolManifest | Promise<ToolManifest>;
  /** The bearer token every request but `/healthz` must carry, if any. */
  token?: string;
  /** A read-only token: it may only `GET` (and `HEAD`). Needs `token`. */
  readToken?: string;
  /**
   * Refuses what a browser may send on another site's behalf (`createRequestGuard`), before any
   * route or token check, `/healthz` included.
   */
  checkRequest?: (request: {
    method?: string | undefined;
    headers: IncomingHttpHeaders;
  }) => RequestRefusal | undefined;
  /** The agent of a `POST /v1/turns` or `POST /v1/workflows` without `agent`. */
  defaultAgent: string;
  /** The agents this daemon serves: the API reads and writes only theirs. */
  agents: readonly string[];
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** `serving`, `draining`, or `lock-lost` (the embedded database's lock is gone: no new turns). */
  state(): 'serving' | 'draining' | 'lock-lost';
  /** Whether the agents' commands run in the sandbox, for `/healthz`; absent: not reported. */
  commandSandbox?: () => CommandSandboxReport;
  /** How often a stream of a turn running elsewhere, and `/v1/events`, read the records, in ms. Default 1000. */
  recordPollMs?: number;
  /** The version in the OpenAPI document. */
  version: string;
  /** Receives one-line log messages. */
  log?: (line: string) => void;
  /**
   * The operator console answered at `/` (`readConsoleFiles`): its files, the folder that held no
   * built console, or `disabled`. Default `disabled`.
   */
  console?: ConsoleSite;
}

/**
 * The headers of every console file: the page loads only its own scripts, styles and images, talks
 * only to this daemon, and cannot be framed; nothing it links to learns where it came from.
 */
const CONSOLE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/** Whether a `GET` of `path` asks for the console (the page or one of its files), not the API. */
function isConsolePath(path: string, site: ConsoleSite): boolean {
  if (path === '/' || path === '/index.html' || path.startsWith('/assets/')) return true;
  return site.status === 'served' && site.files.has(path);
}

type Bindings = { Bindings: Partial<HttpBindings> };

/** An error answered as `{ error: { code, message, fields? } }`. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** `tasks[0].id` from a Zod issue path. */
function fieldOf(path: readonly PropertyKey[]): string {
  let field = '';
  for (const part of path) {
    if (typeof part === 'number') field += `[${part}]`;
    else field += field === '' ? String(part) : `.${String(part)}`;
  }
  return field;
}

/** A Zod failure as the API's 400: every problem in the message, every field named. */
function validationError(error: z.ZodError, target: string): HttpError {
  const problems: string[] = [];
  const fields: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = fieldOf([...issue.path, key]);
        fields.push(field);
        problems.push(`${field}: unknown field`);
      }
      continue;
    }
    const field = fieldOf(issue.path) || target;
    if (!fields.includes(field)) fields.push(field);
    problems.push(`${field}: ${issue.message}`);
  }
  if (target === 'param') return new HttpError(404, 'not_found', 'no such resource');
  return new HttpError(
    400,
    target === 'query' ? 'invalid_query' : 'invalid_body',
    problems.join('; '),
    fields,
  );
}

/** `value`, or the API's 404 saying there is no `noun` with that `id`. */
function found<T>(value: T | undefined, noun: string, id: string): T {
  if (value === undefined) throw new HttpError(404, 'not_found', `no ${noun} '${id}'`);
  return value;
}

/** Opaque paging cursors: a position in a list ordered newest first. */
function encodeCursor(position: { createdAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string | undefined): { createdAt: string; id: string } | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id };
  } catch {
    // Below.
  }
  throw new HttpError(400, 'invalid_query', 'cursor: not a cursor this API gave out', ['cursor']);
}

/** Where a page of a list starts (after the `cursor` a previous page gave) and how long it is. */
function pageOf(query: { cursor?: string | undefined; limit?: number | undefined }) {
  const before = decodeCursor(query.cursor);
  return { ...(before === undefined ? {} : { before }), limit: query.limit ?? 20 };
}

/** The `nextCursor` of a page that has a next one. */
function nextCursorOf(next: { createdAt: string; id: string } | undefined) {
  return next === undefined ? {} : { nextCursor: encodeCursor(next) };
}

/** A JSON response of `schema`. */
const jsonResponse = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});

/** A required JSON request body of `schema`. */
const jsonBody = <S extends z.ZodType>(schema: S) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** A JSON response of `schema` whose `Location` header names what it describes (a resource just made). */
const locatedResponse = <S extends z.ZodType>(description: string, schema: S) => ({
  ...jsonResponse(description, schema),
  headers: { location: { schema: { type: 'string' as const } } },
});

/** A server-sent event stream response. */
const eventStreamResponse = {
  description: 'The event stream',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as const;

/** An error response (`{ error: { code, message, fields? } }`) only one route answers. */
const errorResponse = (description: string) => jsonResponse(description, ErrorSchema);

/**
 * An error response several routes answer: described once in the document's `components.responses`
 * (registered by `registerSharedErrors`), each route refers to it.
 */
function sharedError(name: string, description: string) {
  return {
    name,
    response: {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
    ref: { $ref: `#/components/responses/${name}` },
  };
}

const SHARED_ERRORS = {
  unauthorized: sharedError('Unauthorized', 'No valid bearer token'),
  forbidden: sharedError('Forbidden', 'A cross-site browser request, or the read-only token on a write'),
  notJson: sharedError('UnsupportedMediaType', 'A body that is not JSON'),
  foreignHost: sharedError('MisdirectedRequest', 'A Host that is not one of the daemon’s own'),
  invalid: sharedError(
    'InvalidRequest',
    'A body or query that does not match the schema (`fields` names each problem)',
  ),
  tooLarge: sharedError('PayloadTooLarge', 'A body over the size limit'),
  noTurn: sharedError('TurnNotFound', 'No such turn'),
  noApproval: sharedError('ApprovalNotFound', 'No such approval'),
  noWorkflow: sharedError('WorkflowNotFound', 'No such workflow'),
} as const;

/** Puts the shared error responses into the document, for routes to refer to. */
function registerSharedErrors(app: OpenAPIHono<Bindings>): void {
  app.openAPIRegistry.register('Error', ErrorSchema);
  for (const { name, response } of Object.values(SHARED_ERRORS)) {
    app.openAPIRegistry.registerComponent('responses', name, response);
  }
}

/** The errors any authenticated route may answer. */
const COMMON_ERRORS = {
  401: SHARED_ERRORS.unauthorized.ref,
  403: SHARED_ERRORS.forbidden.ref,
  415: SHARED_ERRORS.notJson.ref,
  421: SHARED_ERRORS.foreignHost.ref,
} as const;
const BODY_ERRORS = {
  400: SHARED_ERRORS.invalid.ref,
  413: SHARED_ERRORS.tooLarge.ref,
} as const;

/** What a route says of itself in the document, besides its method, request and responses. */
interface RouteText {
  operationId: string;
  path: string;
  summary: string;
  description?: string;
}

/** A route behind the bearer token: it answers `responses` and the errors of every authenticated route. */
function authenticatedRoute<
  M extends 'get' | 'post',
  Q extends NonNullable<RouteConfig['request']>,
  R extends RouteConfig['responses'],
>(method: M, text: RouteText, request: Q, responses: R) {
  return createRoute({
    method,
    ...text,
    security: [{ bearer: [] }],
    request,
    responses: { ...responses, ...COMMON_ERRORS },
  });
}

/**
 * A `GET` of what the agents served have (a list, or the event feed), narrowed by `query`: `ok`
 * (200), or 400 for a bad query.
 */
const listRoute = <Q extends z.ZodObject, Ok extends RouteConfig['responses'][number]>(
  text: RouteText,
  query: Q,
  ok: Ok,
) => authenticatedRoute('get', text, { query }, { 200: ok, 400: BODY_ERRORS[400] });

/**
 * A route of one resource, named by the `{id}` in its path: `responses`, or `notFound` (404) when
 * there is no such resource.
 */
const idRoute = <M extends 'get' | 'post', R extends RouteConfig['responses']>(
  method: M,
  text: RouteText,
  notFound: RouteConfig['responses'][number],
  responses: R,
) => authenticatedRoute(method, text, { params: IdParamSchema }, { ...responses, 404: notFound });

/**
 * A `POST` of a JSON body of `body`: `responses`, 400 for a body that does not match it, or 413 for
 * one over the size limit.
 */
const bodyRoute = <B extends z.ZodType, R extends RouteConfig['responses']>(
  text: RouteText,
  body: B,
  responses: R,
) => authenticatedRoute('post', text, { body: jsonBody(body) }, { ...responses, ...BODY_ERRORS });

/** One server-sent event. */
function sseBlock(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A `text/event-stream` response fed by `start(write, end)`; `start` returns its clean-up, run when
 * the stream ends or the client goes away.
 */
function eventStream(
  comment: string,
  signal: AbortSignal,
  start: (write: (text: string) => void, end: () => void) => (() => void) | Promise<() => void>,
): Response {
  const encoder = new TextEncoder();
  let cleanUp: (() => void) | undefined;
  let ended = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const end = () => {
        if (ended) return;
        ended = true;
        cleanUp?.();
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      };
      const write = (text: string) => {
        if (ended) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          end();
        }
      };
      write(`: ${comment}\n\n`);
      signal.addEventListener('abort', end, { once: true });
      cleanUp = await start(write, end);
      if (ended) cleanUp();
    },
    cancel() {
      ended = true;
      cleanUp?.();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    },
  });
}

/**
 * The daemon's HTTP API on Hono with `@hono/zod-openapi`: routes, validation and the OpenAPI 3.1
 * document (`/v1/openapi.json`) from one set of Zod schemas. Turns (start, list, read, follow,
 * cancel), approvals (list, answer), workflows (start, list, read, cancel), `/v1/events` (every turn
 * and approval of the agents served, for a console) and `/healthz`; and the operator console's
 * files at `/`, `/index.html` and `/assets/*` (`console`: no token needed, the request guard applies,
 * left out of the document).
 *
 * Contract: every error is JSON `{ error: { code, message, fields? } }`, the framework's own
 * included: 421 for a foreign `Host`, 403 for a cross-site browser request, 415 for a body that is not
 * JSON (`checkRequest`, before any route or token check, `/healthz` included); 401 without a token
 * when one is set, 403 for the read-only token on anything but `GET`; 400 for a bad body or query
 * (naming the fields), 404, 405 (with `Allow`), 409 for an approval already decided or a turn that
 * ended, 413 for a body over `maxBodyBytes`, 503 for a new turn while draining, after the embedded
 * database's lock was lost (`lock_lost`), or when it cannot be recorded.
 */
export function createDaemonHttpApi(options: DaemonHttpApiOptions): OpenAPIHono<Bindings> {
  const { turns, controlPlane } = options;
  const site: ConsoleSite = options.console ?? { status: 'disabled' };
  const agents = options.agents;
  const schemas = agentSchemas(agents);
  const pollMs = options.recordPollMs ?? 1000;
  const feed = new EventFeed({
    turns,
    controlPlane,
    agents,
    pollMs,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  const app = new OpenAPIHono<Bindings>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'The bearer token (serve.tokenEnv), or the read-only token (serve.readTokenEnv) for GET. Needed off loopback; on loopback when one is set.',
  });
  // Sent inside the event streams, not as a response body: registered so clients are typed from it.
  app.openAPIRegistry.register('ToolCallEndEvent', ToolCallEndEventSchema);
  registerSharedErrors(app);

  app.onError((error, c) => {
    const failure =
      error instanceof HttpError
        ? error
        : error instanceof HTTPException && /malformed json/i.test(error.message)
          ? new HttpError(400, 'invalid_json', 'the request body is not valid JSON')
          : error instanceof HTTPException && error.status === 415
            ? new HttpError(
                415,
                'unsupported_media_type',
                'the request body must be JSON, sent with Content-Type: application/json',
              )
            : new HttpError(500, 'internal_error', 'internal error');
    if (failure.status === 500)
      options.log?.(`switchyard serve: internal error in ${c.req.method} ${c.req.path}: ${String(error)}`);
    return c.json(
      {
        error: {
          code: failure.code,
          message: failure.message,
          ...(failure.fields === undefined ? {} : { fields: failure.fields }),
        },
      },
      failure.status as 400,
      {
        'cache-control': 'no-store',
        ...failure.headers,
        // A refused upload is not read to its end: the connection is closed after the answer.
        ...(failure.status === 413 || failure.status === 415 ? { connection: 'close' } : {}),
      },
    );
  });
  app.notFound((c) => {
    throw new HttpError(404, 'not_found', `no route for ${c.req.path}`);
  });

  // First, so the request's span covers every check and the turn it starts is its child.
  app.use('*', httpTraceMiddleware);
  // The request guard, before any route or token check, /healthz included.
  app.use('*', async (c, next) => {
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    const headers: IncomingHttpHeaders = incoming?.headers ?? Object.fromEntries(c.req.raw.headers);
    const refusal = options.checkRequest?.({ method: c.req.method, headers });
    if (refusal !== undefined) throw new HttpError(refusal.status, refusal.code, refusal.message);
    await next();
  });
  // Tokens: every route but /healthz and the console's files (they hold no data: the page asks for
  // the token and sends it with each API call). The read-only token may only read.
  app.use('*', async (c, next) => {
    if (c.req.path === '/healthz' || options.token === undefined) return next();
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && isConsolePath(c.req.path, site)) return next();
    const header = c.req.header('authorization');
    if (checkBearerToken(header, options.token)) return next();
    if (options.readToken !== undefined && checkBearerToken(header, options.readToken)) {
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
      throw new HttpError(
        403,
        'read_only_token',
        'the read-only token can only GET: use the bearer token to change anything',
      );
    }
    throw new HttpError(401, 'unauthorized', 'a valid bearer token is required', undefined, {
      'www-authenticate': 'Bearer realm="switchyard"',
    });
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: options.maxBodyBytes,
      onError: () => {
        throw new HttpError(413, 'body_too_large', `the request body is over ${options.maxBodyBytes} bytes`);
      },
    }),
  );
  // A body route reads its JSON once: an empty or malformed one is 400 before validation.
  const readJson = async (c: Context, next: () => Promise<void>) => {
    try {
      await c.req.json();
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
    }
    await next();
  };
  app.use('/v1/turns', async (c, next) => (c.req.method === 'POST' ? readJson(c, next) : next()));
  app.use('/v1/workflows', async (c, next) => (c.req.method === 'POST' ? readJson(c, next) : next()));
  app.use('/v1/approvals/:id', async (c, next) => (c.req.method === 'POST' ? readJson(c, next) : next()));

  const json = { 'cache-control': 'no-store' };
  const served = (agent: string | undefined) => (agent === undefined ? [...agents] : [agent]);
  /**
   * Registers the `GET` of one resource named by the `{id}` in its path: 200 with what `find` gives
   * (`ok` describes it), or the 404 `notFound` that `find` throws (see `found`).
   */
  const getById = <S extends z.ZodType>(
    text: RouteText,
    notFound: RouteConfig['responses'][number],
    ok: { description: string; schema: S },
    find: (id: string) => Promise<z.input<S>>,
  ) =>
    app.openapi(idRoute('get', text, notFound, { 200: jsonResponse(ok.description, ok.schema) }), async (c) =>
      c.json(await find(c.req.valid('param').id), 200, json),
    );

  app.openapi(
    createRoute({
      method: 'get',
      operationId: 'getHealth',
      path: '/healthz',
      summary: 'Liveness: serving, draining, or lock-lost',
      responses: {
        200: jsonResponse('Serving', HealthSchema),
        503: jsonResponse('Draining, or the embedded database’s lock was lost (no new work)', HealthSchema),
        421: COMMON_ERRORS[421],
        403: COMMON_ERRORS[403],
      },
    }),
    (c) => {
      const state = options.state();
      const sandbox = options.commandSandbox?.();
      return c.json(
        { status: state, runningTurns: turns.running, ...(sandbox === undefined ? {} : { sandbox }) },
        state === 'serving' ? 200 : 503,
        json,
      );
    },
  );

  app.openapi(
    bodyRoute({ operationId: 'startTurn', path: '/v1/turns', summary: 'Start a turn' }, schemas.turnRequest, {
      202: locatedResponse('Recorded and started; `Location` names it', TurnSchema),
      503: errorResponse(
        'Draining, the embedded database’s lock was lost, or the turn could not be recorded (nothing runs)',
      ),
    }),
    async (c) => {
      const body = c.req.valid('json');
      const agent = body.agent ?? options.defaultAgent;
      let started: { id: string } | undefined;
      try {
        started = await options.startTurn({ agentId: agent, prompt: body.prompt, source: 'api' });
      } catch (error) {
        // A prompt the records refuse (a NUL character, a lone surrogate) is the client's to fix.
        if (ControlPlaneInputError.isInstance(error)) {
          throw new HttpError(400, 'invalid_body', error.message, [error.field]);
        }
        throw new HttpError(
          503,
          'unavailable',
          'the turn could not be recorded, so it was not started; retry',
        );
      }
      if (started === undefined) {
        throw options.state() === 'lock-lost'
          ? new HttpError(
              503,
              'lock_lost',
              'the daemon lost the lock on its embedded database and takes no new turns: see its log',
            )
          : new HttpError(503, 'draining', 'the daemon is shutting down and takes no new turns');
      }
      const snapshot = turns.get(started.id);
      if (snapshot === undefined)
        throw new HttpError(500, 'internal_error', 'the turn was started but is not known');
      return c.json(snapshot, 202, { ...json, location: `/v1/turns/${started.id}` });
    },
  );

  app.openapi(
    listRoute(
      {
        operationId: 'listTurns',
        path: '/v1/turns',
        summary: 'Recorded turns of the agents served, newest first',
      },
      schemas.turnsQuery,
      jsonResponse('A page of turns', TurnListSchema),
    ),
    async (c) => {
      const query = c.req.valid('query');
      const page = await controlPlane.turns.page({
        agentIds: served(query.agent),
        ...definedFields(query, ['status', 'source']),
        ...pageOf(query),
      });
      return c.json(
        {
          turns: page.turns.map((record) => turns.get(record.id) ?? snapshotOf(record)),
          ...nextCursorOf(page.next),
        },
        200,
        json,
      );
    },
  );

  /** A recorded turn, whichever process runs or ran it (lists cover the agents served; ids any). */
  const findTurn = async (id: string) => found(await turns.find(id), 'turn', id);

  getById(
    { operationId: 'getTurn', path: '/v1/turns/{id}', summary: 'One turn, whichever process ran it' },
    SHARED_ERRORS.noTurn.ref,
    { description: 'The turn', schema: TurnSchema },
    findTurn,
  );

  app.openapi(
    idRoute(
      'get',
      {
        operationId: 'getTurnEvents',
        path: '/v1/turns/{id}/events',
        summary: 'The turn’s events: replayed, then live, ending after turn-end',
        description:
          'Server-sent events, `event: <type>` and `data: <JSON>`: core’s turn-start, model-request-start, text-delta, model-request-end, tool-call-start, tool-call-progress, tool-call-end (its data is a ToolCallEndEvent, see components) and turn-end, and approval-requested / approval-resolved when a call is held for an approval. For a turn of another process or an earlier run: its recorded log, followed until it ends (tool-call-end outcomes recorded by an older worker are sent in today’s vocabulary).',
      },
      SHARED_ERRORS.noTurn.ref,
      { 200: eventStreamResponse },
    ),
    async (c) => {
      const { id } = c.req.valid('param');
      const snapshot = await findTurn(id);
      const signal = c.req.raw.signal;
      if (turns.has(id)) {
        return eventStream('switchyard turn events', signal, (write, end) => {
          let sequence = 0;
          const unsubscribe = turns.subscribe(id, (event) => {
            sequence += 1;
            write(sseBlock(sequence, event.type, event));
            if (event.type === 'turn-end') queueMicrotask(end);
          });
          return () => unsubscribe?.();
        }) as never;
      }
      return eventStream('switchyard turn events', signal, async (write, end) => {
        let closed = false;
        void (async () => {
          // A turn running (or waiting) elsewhere: a comment per check keeps the connection open.
          let current = snapshot;
          while (!closed && (current.status === 'running' || current.status === 'waiting-approval')) {
            await new Promise((resolve) => setTimeout(resolve, pollMs));
            write(': running elsewhere\n\n');
            current = (await turns.find(id)) ?? current;
          }
          if (closed) return;
          const events: DaemonTurnEvent[] = (await turns.recordedEvents(id)) ?? [];
          // An interrupted turn has no recorded log: its stream still ends with a turn-end.
          if (
            events.at(-1)?.type !== 'turn-end' &&
            current.status !== 'running' &&
            current.status !== 'waiting-approval'
          ) {
            events.push({
              type: 'turn-end',
              status: current.status,
              iterations: current.iterations,
              usage: current.usage,
              ...(current.error === undefined ? {} : { error: current.error }),
            });
          }
          events.forEach((event, index) => {
            write(sseBlock(index + 1, event.type, event));
          });
          end();
        })().catch(end);
        return () => {
          closed = true;
        };
      }) as never;
    },
  );

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
      return c.json(after, 202, json);
    },
  );

  app.openapi(
    listRoute(
      {
        operationId: 'listApprovals',
        path: '/v1/approvals',
        summary: 'Approvals of held calls of the agents served, newest first (default: pending ones)',
      },
      schemas.approvalsQuery,
      jsonResponse('A page of approvals', ApprovalListSchema),
    ),
    async (c) => {
      const query = c.req.valid('query');
      // A bad cursor is refused before anything expires.
      const paging = pageOf(query);
      await controlPlane.approvals.expireDue();
      const page = await controlPlane.approvals.page({
        agentIds: served(query.agent),
        status: query.status ?? 'pending',
        ...(query.turn === undefined ? {} : { turnId: query.turn }),
        ...paging,
      });
      return c.json({ approvals: page.approvals.map(approvalView), ...nextCursorOf(page.next) }, 200, json);
    },
  );

  const findApproval = async (id: string): Promise<ApprovalRecord> =>
    found(await controlPlane.approvals.get(id), 'approval', id);

  getById(
    { operationId: 'getApproval', path: '/v1/approvals/{id}', summary: 'One approval' },
    SHARED_ERRORS.noApproval.ref,
    { description: 'The approval', schema: ApprovalSchema },
    async (id) => approvalView(await findApproval(id)),
  );

  getById(
    {
      operationId: 'getApprovalArguments',
      path: '/v1/approvals/{id}/arguments',
      summary: 'The held call’s arguments, whole: exactly what runs if it is allowed',
    },
    SHARED_ERRORS.noApproval.ref,
    { description: 'The arguments as stored', schema: ApprovalArgumentsSchema },
    async (id) => {
      const approval = await findApproval(id);
      return { id: approval.id, argumentsBytes: approval.argumentsBytes, arguments: approval.arguments };
    },
  );

  app.openapi(
    authenticatedRoute(
      'post',
      {
        operationId: 'answerApproval',
        path: '/v1/approvals/{id}',
        summary: 'Answer an approval: allow runs the held call once; deny gives the model the reason',
      },
      { params: IdParamSchema, body: jsonBody(AnswerSchema) },
      {
        200: jsonResponse('Answered', ApprovalSchema),
        404: SHARED_ERRORS.noApproval.ref,
        409: errorResponse('Already answered, expired or cancelled'),
        ...BODY_ERRORS,
      },
    ),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      await findApproval(id);
      const outcome = found(
        await controlPlane.approvals.answer({
          id,
          decision: body.decision,
          ...(body.reason === undefined ? {} : { reason: body.reason }),
          answeredBy: 'api',
        }),
        'approval',
        id,
      );
      if (outcome.status === 'already-decided') {
        throw new HttpError(
          409,
          'already_decided',
          `approval '${id}' is already ${outcome.approval.status}${outcome.approval.reason === undefined ? '' : ` (${outcome.approval.reason})`}`,
        );
      }
      turns.notifyDecision(outcome.approval);
      return c.json(approvalView(outcome.approval), 200, json);
    },
  );

  type WorkflowRecord = NonNullable<Awaited<ReturnType<ControlPlane['workflows']['showWorkflow']>>>;
  const workflowView = (agent: string, record: WorkflowRecord) => ({ ...record, agent });
  /** A workflow of an agent this daemon serves, and that agent; 404 otherwise. */
  const findWorkflow = async (id: string): Promise<{ agent: string; record: WorkflowRecord }> => {
    for (const agent of agents) {
      const record = await controlPlane.workflows.showWorkflow({ agentId: agent, workflowId: id });
      if (record !== null) return { agent, record };
    }
    throw new HttpError(404, 'not_found', `no workflow '${id}'`);
  };

  app.openapi(
    bodyRoute(
      {
        operationId: 'startWorkflow',
        path: '/v1/workflows',
        summary: 'Start a workflow (checked as the workflow tool checks it)',
        description:
          'Tasks without dependsOn start at once, in parallel; each runs as a task turn and stores a result matching its resultSchema. Send an `Idempotency-Key` header to start one workflow however often the request is retried.',
      },
      schemas.workflowRequest,
      {
        201: locatedResponse('Stored and started; `Location` names it', WorkflowSchema),
        503: errorResponse('The embedded database’s lock was lost: the daemon takes no new work'),
      },
    ),
    async (c) => {
      if (options.state() === 'lock-lost') {
        throw new HttpError(
          503,
          'lock_lost',
          'the daemon lost the lock on its embedded database and takes no new work: see its log',
        );
      }
      const body = c.req.valid('json');
      const agent = body.agent ?? options.defaultAgent;
      const key = c.req.header('idempotency-key');
      if (key !== undefined && (key.length === 0 || key.length > 200)) {
        throw new HttpError(400, 'invalid_header', 'Idempotency-Key: expected 1 to 200 characters', [
          'Idempotency-Key',
        ]);
      }
      let record: WorkflowRecord;
      try {
        record = await controlPlane.workflows.startWorkflow({
          agentId: agent,
          spec: {
            name: body.name,
            tasks: body.tasks.map((task) => ({
              id: task.id,
              prompt: task.prompt,
              resultSchema: task.resultSchema as never,
              ...(task.dependsOn === undefined ? {} : { dependsOn: task.dependsOn }),
            })),
          },
          ...(key === undefined ? {} : { idempotencyKey: `api:${agent}:${key}` }),
        });
      } catch (error) {
        if (ControlPlaneInputError.isInstance(error)) {
          throw new HttpError(400, 'invalid_body', error.message, [error.field]);
        }
        throw error;
      }
      return c.json(workflowView(agent, record), 201, { ...json, location: `/v1/workflows/${record.id}` });
    },
  );

  app.openapi(
    listRoute(
      {
        operationId: 'listWorkflows',
        path: '/v1/workflows',
        summary: 'Recent workflows of the agents served, newest first (50 per agent)',
      },
      schemas.workflowsQuery,
      jsonResponse('Workflows', WorkflowListSchema),
    ),
    async (c) => {
      const query = c.req.valid('query');
      const lists = await Promise.all(
        served(query.agent).map(async (agent) =>
          (await controlPlane.workflows.listWorkflows({ agentId: agent })).map((summary) => ({
            ...summary,
            agent,
          })),
        ),
      );
      const workflows = lists.flat().toSorted((a, b) => b.createdAt.localeCompare(a.createdAt));
      return c.json({ workflows }, 200, json);
    },
  );

  getById(
    {
      operationId: 'getWorkflow',
      path: '/v1/workflows/{id}',
      summary: 'One workflow: its tasks, their statuses and stored results',
    },
    SHARED_ERRORS.noWorkflow.ref,
    { description: 'The workflow', schema: WorkflowSchema },
    async (id) => {
      const { agent, record } = await findWorkflow(id);
      return workflowView(agent, record);
    },
  );

  app.openapi(
    idRoute(
      'post',
      {
        operationId: 'cancelWorkflow',
        path: '/v1/workflows/{id}/cancel',
        summary: 'Cancel a workflow: pending and queued tasks never start, running ones are aborted',
      },
      SHARED_ERRORS.noWorkflow.ref,
      { 200: jsonResponse('The workflow (unchanged when it had ended)', WorkflowSchema) },
    ),
    async (c) => {
      const { agent } = await findWorkflow(c.req.valid('param').id);
      const record = await controlPlane.workflows.cancelWorkflow({
        agentId: agent,
        workflowId: c.req.valid('param').id,
      });
      if (record === null) throw new HttpError(404, 'not_found', 'no such workflow');
      return c.json(workflowView(agent, record), 200, json);
    },
  );

  app.openapi(
    listRoute(
      {
        operationId: 'getEvents',
        path: '/v1/events',
        summary: 'Every turn and approval of the agents served, live (for a console)',
        description:
          'Server-sent events: `event: turn` (a turn started, changed status or ended, in any process: the Turn), `event: turn-event` (`{ turnId, agent, event }`: each event of a turn this process runs; a tool-call-end event is a ToolCallEndEvent), `event: approval` (an approval asked for, answered, expired or cancelled, in any process: the Approval). Other processes’ changes arrive within a poll of the records (about a second).',
      },
      schemas.eventsQuery,
      eventStreamResponse,
    ),
    (c) => {
      const { agent } = c.req.valid('query');
      return eventStream('switchyard events', c.req.raw.signal, (write) => {
        let sequence = 0;
        const unsubscribe = feed.subscribe((message: FeedMessage) => {
          if (agent !== undefined && message.data.agent !== agent) return;
          sequence += 1;
          write(sseBlock(sequence, message.event, message.data));
        });
        // A comment now and then keeps idle proxies from closing the stream.
        const keepAlive = setInterval(() => write(': idle\n\n'), 15_000);
        keepAlive.unref();
        return () => {
          clearInterval(keepAlive);
          unsubscribe();
        };
      }) as never;
    },
  );

  app.openapi(
    listRoute(
      {
        operationId: 'getSession',
        path: '/v1/session',
        summary: 'Who the caller is to this daemon (full or read-only access) and the agents it serves',
        description:
          'A console calls it first: 401 means it needs a token. `access` is `read-only` for the read-only token, whose requests may only GET.',
      },
      schemas.sessionQuery,
      jsonResponse('The session', SessionSchema),
    ),
    (c) => {
      const header = c.req.header('authorization');
      // The token middleware let the request through: without the bearer token it carried the read-only one.
      const readOnly = options.token !== undefined && !checkBearerToken(header, options.token);
      return c.json(
        {
          access: readOnly ? ('read-only' as const) : ('full' as const),
          agents: [...agents],
          defaultAgent: options.defaultAgent,
          version: options.version,
        },
        200,
        json,
      );
    },
  );

  app.openapi(
    listRoute(
      {
        operationId: 'listSchedules',
        path: '/v1/schedules',
        summary: 'The schedules of the agents served, with their next fire times and recent runs',
        description:
          'What `switchyard schedules list` reads: active schedules, or every one with `all=true`, newest first per agent. `runs` come from the control plane’s run ledger (one row per schedule slot that fired, however often it was delivered), newest first, at most 10, each with the newest turn that ran it.',
      },
      schemas.schedulesQuery,
      jsonResponse('Schedules', ScheduleListSchema),
    ),
    async (c) => {
      const query = c.req.valid('query');
      const lists = await Promise.all(
        served(query.agent).map(async (agent) => {
          const schedules = await controlPlane.schedules.listSchedules({
            agentId: agent,
            includeInactive: query.all === 'true',
          });
          const runs = await controlPlane.schedules.listRuns({
            agentId: agent,
            scheduleIds: schedules.map((schedule) => schedule.id),
            limit: 10,
          });
          return schedules.map((schedule) => ({
            id: schedule.id,
            agent,
            name: schedule.name,
            status: schedule.status,
            kind: schedule.kind,
            ...(schedule.cron === null ? {} : { cron: schedule.cron }),
            ...(schedule.runAt === null ? {} : { runAt: schedule.runAt }),
            timeZone: schedule.timeZone,
            nextFireTimes: schedule.nextFireTimes,
            prompt: schedule.prompt,
            createdAt: schedule.createdAt,
            runs: runs
              .filter((run) => run.scheduleId === schedule.id)
              .map((run) => ({
                firedAt: run.firedAt,
                slot: run.slot,
                status: run.status,
                ...definedFields(run, ['turnId', 'error']),
              })),
          }));
        }),
      );
      return c.json({ items: lists.flat() }, 200, json);
    },
  );

  app.openapi(
    authenticatedRoute(
      'get',
      {
        operationId: 'listTools',
        path: '/v1/tools',
        summary: 'The tool manifest an agent’s next text turn would send',
        description:
          'The rows `switchyard tools --json` prints: each tool’s category, strict or why not, deferred or not, access and schema bytes, with totals. MCP tools come from the daemon’s open connections.',
      },
      { query: schemas.toolsQuery },
      {
        200: jsonResponse('The manifest', ToolManifestSchema),
        400: BODY_ERRORS[400],
        501: errorResponse('This daemon was started without tool manifests'),
      },
    ),
    async (c) => {
      const { agent } = c.req.valid('query');
      if (options.toolManifest === undefined) {
        throw new HttpError(501, 'not_available', 'this daemon was started without tool manifests');
      }
      return c.json(await options.toolManifest(agent ?? options.defaultAgent), 200, json);
    },
  );

  // The console: plain routes, not API operations, so the OpenAPI document leaves them out. Only the
  // paths read at start-up are answered; a request path is never turned into a file-system path.
  const answerConsole = (c: Context) => {
    if (site.status === 'disabled') {
      throw new HttpError(404, 'not_found', 'the console is turned off (serve.console: false)');
    }
    if (site.status === 'not-built') {
      throw new HttpError(
        404,
        'console_not_built',
        `the console was not built (no index.html in ${site.directory}): run \`pnpm exec turbo run build --filter=@switchyard/worker...\`, which builds apps/console and copies it into the worker's dist/console`,
      );
    }
    const file = site.files.get(c.req.path);
    if (file === undefined) throw new HttpError(404, 'not_found', `no route for ${c.req.path}`);
    return c.body(file.bytes as Uint8Array<ArrayBuffer>, 200, {
      ...CONSOLE_HEADERS,
      'content-type': file.contentType,
      'content-length': String(file.bytes.byteLength),
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  };
  app.get('/', answerConsole);
  app.get('/index.html', answerConsole);
  app.get('/assets/*', answerConsole);
  if (site.status === 'served') {
    for (const path of site.files.keys()) {
      if (!isConsolePath(path, { status: 'disabled' })) app.get(path, answerConsole);
    }
  }

  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard worker daemon',
      version: options.version,
      description:
        'The HTTP API of `switchyard serve`: turns, approvals of held tool calls, workflows and a live event feed. Every error is `{ error: { code, message, fields? } }`.',
    },
  });

  // Known paths with another method: 405 naming the methods they take.
  const methods: Array<[string, string[]]> = [
    ['/', ['GET', 'HEAD']],
    ['/index.html', ['GET', 'HEAD']],
    ['/healthz', ['GET', 'HEAD']],
    ['/v1/openapi.json', ['GET']],
    ['/v1/turns', ['GET', 'POST']],
    ['/v1/turns/:id', ['GET']],
    ['/v1/turns/:id/events', ['GET']],
    ['/v1/turns/:id/cancel', ['POST']],
    ['/v1/approvals', ['GET']],
    ['/v1/approvals/:id', ['GET', 'POST']],
    ['/v1/approvals/:id/arguments', ['GET']],
    ['/v1/workflows', ['GET', 'POST']],
    ['/v1/workflows/:id', ['GET']],
    ['/v1/workflows/:id/cancel', ['POST']],
    ['/v1/events', ['GET']],
    ['/v1/session', ['GET']],
    ['/v1/schedules', ['GET']],
    ['/v1/tools', ['GET']],
  ];
  for (const [path, allowed] of methods) {
    app.all(path, () => {
      throw new HttpError(405, 'method_not_allowed', `use ${allowed.join(' or ')}`, undefined, {
        allow: allowed.join(', '),
      });
    });
  }
  return app;
}
