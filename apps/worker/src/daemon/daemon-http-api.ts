import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { createRoute, OpenAPIHono, type RouteConfig, type z } from '@hono/zod-openapi';
import {
  type ApprovalRecord,
  type ControlPlane,
  ControlPlaneInputError,
  type IdempotentOperation,
  type StoredAnswer,
} from '@switchyard/control-plane';
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
  IdempotencyKeyHeaderSchema,
  IdParamSchema,
  ScheduleListSchema,
  SessionSchema,
  StreamOverflowEventSchema,
  ToolCallEndEventSchema,
  ToolManifestSchema,
  TurnListSchema,
  TurnSchema,
  WorkflowListSchema,
  WorkflowSchema,
} from './api/api-schemas';
import { boundedEventStream } from './api/bounded-event-stream';
import { EventFeed, feedMessageText, type NumberedFeedMessage } from './api/event-feed';
import { decodePageCursor, encodePageCursor, type PagePosition } from './api/page-cursor';
import { checkBearerToken } from './check-bearer-token';
import type { ConsoleSite } from './console-files';
import { approvalView } from './daemon-approvals';
import {
  type DaemonTurnEvent,
  type DaemonTurnRequest,
  type DaemonTurnSnapshot,
  type DaemonTurns,
  snapshotOf,
} from './daemon-turns';
import { definedFields } from './defined-fields';
import { readIdempotencyKey, requestFingerprint } from './idempotency-key-header';
import { type IdempotentStartOutcome, startIdempotently } from './idempotent-start';
import type { LoadShedder } from './load-shedder';
import { DEFAULT_MAX_EVENT_STREAM_BYTES } from './memory-limits';
import type { RequestRefusal } from './request-guard';

/** What the HTTP API needs from the daemon. */
export interface DaemonHttpApiOptions {
  /** The daemon's turns. */
  turns: DaemonTurns;
  /**
   * Records and starts an API turn (under `options.id` when given); undefined while draining (the
   * daemon takes no new turns).
   */
  startTurn(request: DaemonTurnRequest, options?: { id?: string }): Promise<{ id: string } | undefined>;
  /**
   * The control plane: turn records, approvals, workflows and schedules of the agents served, and
   * the `Idempotency-Key`s of its `POST`s (`kind`: on embedded PGlite another worker's claim of a
   * key is a dead process's).
   */
  controlPlane: Pick<
    ControlPlane,
    'kind' | 'turns' | 'approvals' | 'workflows' | 'schedules' | 'idempotency'
  >;
  /**
   * Load shedding (`serve.maxWaitingWork`): a request it refuses is answered 503 with `Retry-After`
   * before any other check or work. Absent: every request is taken.
   */
  shedder?: LoadShedder;
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
  /**
   * The most bytes an event stream holds for its reader (`serve.maxEventStreamBytes`); a reader
   * further behind gets `event: overflow` and the stream ends. Default 4 MiB.
   */
  maxEventStreamBytes?: number;
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

/** Opaque paging cursors (`page-cursor.ts`): a position in a list ordered newest first. */
function decodeCursor(cursor: string | undefined): PagePosition | undefined {
  if (cursor === undefined) return undefined;
  const position = decodePageCursor(cursor);
  if (position !== undefined) return position;
  throw new HttpError(400, 'invalid_query', 'cursor: not a cursor this API gave out', ['cursor']);
}

/**
 * A list query the control plane refused, as the API's 400 naming the query field (its `before`
 * is the API's `cursor`); anything else is rethrown.
 */
function refusedQuery(error: unknown): never {
  if (!ControlPlaneInputError.isInstance(error)) throw error;
  const field = error.field.startsWith('before') ? 'cursor' : error.field;
  throw new HttpError(400, 'invalid_query', `${field}: ${error.message}`, [field]);
}

/** Where a page of a list starts (after the `cursor` a previous page gave) and how long it is. */
function pageOf(query: { cursor?: string | undefined; limit?: number | undefined }) {
  const before = decodeCursor(query.cursor);
  return { ...(before === undefined ? {} : { before }), limit: query.limit ?? 20 };
}

/** The `nextCursor` of a page that has a next one. */
function nextCursorOf(next: { createdAt: string; id: string } | undefined) {
  return next === undefined ? {} : { nextCursor: encodePageCursor(next) };
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

/** The `Retry-After` header of a 409 or 503: when to send the request again. */
const RETRY_AFTER_HEADER = {
  'retry-after': {
    description: 'Seconds to wait before sending the request again',
    schema: { type: 'integer' as const, minimum: 1 },
  },
};

/**
 * An error response several routes answer: described once in the document's `components.responses`
 * (registered by `registerSharedErrors`), each route refers to it.
 */
function sharedError(name: string, description: string, headers?: typeof RETRY_AFTER_HEADER) {
  return {
    name,
    response: {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      ...(headers === undefined ? {} : { headers }),
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
  overloaded: sharedError(
    'Overloaded',
    'Over the daemon’s bound of waiting work (serve.maxWaitingWork): nothing was done; send it again after Retry-After',
    RETRY_AFTER_HEADER,
  ),
  keyInUse: sharedError(
    'IdempotencyKeyInUse',
    'A request with the same Idempotency-Key is still being answered: send it again after Retry-After',
    RETRY_AFTER_HEADER,
  ),
  keyReused: sharedError(
    'IdempotencyKeyReused',
    'The Idempotency-Key was used with another request body: nothing was done',
  ),
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

/**
 * A route behind the bearer token: it answers `responses` and the errors of every authenticated route
 * (503 when overloaded, unless `responses` says more of its 503).
 */
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
    responses: { 503: SHARED_ERRORS.overloaded.ref, ...responses, ...COMMON_ERRORS },
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
 * A `POST` that creates something from a JSON body of `body`, with an optional `Idempotency-Key`:
 * `responses`, 400 for a body that does not match it (or a bad key), 409 while a request with the
 * key is being answered, 413 for a body over the size limit, 422 for the key used with another body.
 */
const createRouteOf = <B extends z.ZodType, R extends RouteConfig['responses']>(
  text: RouteText,
  body: B,
  responses: R,
) =>
  authenticatedRoute(
    'post',
    text,
    { body: jsonBody(body), headers: IdempotencyKeyHeaderSchema },
    { ...responses, 409: SHARED_ERRORS.keyInUse.ref, 422: SHARED_ERRORS.keyReused.ref, ...BODY_ERRORS },
  );

/** One server-sent event. */
function sseBlock(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The server-sent events of a turn's log, numbered from `first`, made as a stream's reader takes them. */
function* eventBlocks(events: readonly DaemonTurnEvent[], first = 1): Generator<string> {
  let id = first;
  for (const event of events) {
    yield sseBlock(id, event.type, event);
    id += 1;
  }
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
 * database's lock was lost (`lock_lost`), or when it cannot be recorded. With a `shedder`, a request it refuses gets 503 `overloaded` with `Retry-After` before
 * any other check (`/healthz` and the console's files are never refused). `POST /v1/turns` and
 * `POST /v1/workflows` take an `Idempotency-Key` (`startIdempotently`): the first answer again for
 * the same key and body, 409 with `Retry-After` while it is being made, 422 for another body, 400
 * for a key that is not one.
 */
export function createDaemonHttpApi(options: DaemonHttpApiOptions): OpenAPIHono<Bindings> {
  const { turns, controlPlane } = options;
  const site: ConsoleSite = options.console ?? { status: 'disabled' };
  const agents = options.agents;
  const schemas = agentSchemas(agents);
  const pollMs = options.recordPollMs ?? 1000;
  const streamLimit = options.maxEventStreamBytes ?? DEFAULT_MAX_EVENT_STREAM_BYTES;
  /** Every event stream: bounded for its reader (see `boundedEventStream`). */
  const eventStream = (
    c: Context<Bindings>,
    comment: string,
    start: Parameters<typeof boundedEventStream>[0]['start'],
  ) =>
    boundedEventStream({
      comment,
      signal: c.req.raw.signal,
      limitBytes: streamLimit,
      socket: c.env?.outgoing,
      start,
    }) as never;
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
  app.openAPIRegistry.register('StreamOverflowEvent', StreamOverflowEventSchema);
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

  // Load shedding comes before everything, tracing included: over the bound a request costs only its
  // 503, and the process takes on no more work. The connection is closed after it, so a burst of
  // refused clients gives its file descriptors back at once. /healthz and the console's files are
  // always answered.
  const shedder = options.shedder;
  if (shedder !== undefined) {
    app.use('*', async (c, next) => {
      const reading = c.req.method === 'GET' || c.req.method === 'HEAD';
      if (c.req.path === '/healthz' || (reading && isConsolePath(c.req.path, site))) return next();
      const startsWork =
        c.req.method === 'POST' && (c.req.path === '/v1/turns' || c.req.path === '/v1/workflows');
      const admission = shedder.admit({ startsWork });
      if (!admission.admitted) {
        throw new HttpError(
          503,
          'overloaded',
          `${admission.reason}: nothing was done; send it again after ${admission.retryAfterSeconds} s`,
          undefined,
          { 'retry-after': String(admission.retryAfterSeconds), connection: 'close' },
        );
      }
      try {
        await next();
      } finally {
        // An event stream counts until its response is under way, not for as long as it is open.
        admission.done();
      }
    });
  }
  // First after that, so the request's span covers every check and the turn it starts is its child.
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
  // A body route reads its JSON once: an empty or malformed one is 400 before validation. Its bytes
  // are read first and kept: an Idempotency-Key's fingerprint is their digest, exactly as sent.
  const readJson = async (c: Context, next: () => Promise<void>) => {
    try {
      await c.req.arrayBuffer();
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

  /** The request's `Idempotency-Key`, or undefined without one; a bad one is a 400 naming the header. */
  const idempotencyKeyOf = (c: Context): string | undefined => {
    const header = readIdempotencyKey(c.req.header('idempotency-key'));
    if (header.status === 'invalid') {
      throw new HttpError(400, 'invalid_header', header.message, ['Idempotency-Key']);
    }
    return header.status === 'valid' ? header.key : undefined;
  };
  /**
   * Answers a `POST` that creates something: `create(undefined)` at once without an
   * `Idempotency-Key`; with one, through the key's claim (`startIdempotently`): the first answer
   * again for a retry, 409 while it is still being made, 422 for another body.
   */
  const answerCreate = async (
    c: Context,
    request: {
      agent: string;
      operation: IdempotentOperation;
      newResourceId(): string;
      create(resourceId: string | undefined, takenOver: boolean): Promise<StoredAnswer>;
    },
  ): Promise<Response> => {
    const key = idempotencyKeyOf(c);
    const outcome: IdempotentStartOutcome =
      key === undefined
        ? { kind: 'answer', answer: await request.create(undefined, false), replayed: false }
        : await startIdempotently({
            store: controlPlane.idempotency,
            agentId: request.agent,
            operation: request.operation,
            key,
            fingerprint: requestFingerprint(await c.req.arrayBuffer()),
            workerId: turns.workerId,
            othersAreGone: controlPlane.kind === 'pglite',
            newResourceId: request.newResourceId,
            create: request.create,
            ...(options.log === undefined ? {} : { log: options.log }),
          });
    if (outcome.kind === 'in-progress') {
      throw new HttpError(
        409,
        'idempotency_key_in_use',
        'Idempotency-Key: a request with this key is still being answered; send it again after 1 s',
        ['Idempotency-Key'],
        { 'retry-after': '1' },
      );
    }
    if (outcome.kind === 'mismatch') {
      throw new HttpError(
        422,
        'idempotency_key_reused',
        'Idempotency-Key: this key was used with another request body; a new request needs a new key',
        ['Idempotency-Key'],
      );
    }
    const { answer } = outcome;
    return c.body(answer.body, answer.status as 202, {
      ...json,
      'content-type': 'application/json',
      ...answer.headers,
    });
  };
  /** A turn's 202 (`Location` names it), as sent and as kept for an Idempotency-Key. */
  const turnAnswer = (snapshot: DaemonTurnSnapshot): StoredAnswer => ({
    status: 202,
    headers: { location: `/v1/turns/${snapshot.id}` },
    body: JSON.stringify(snapshot),
  });

  app.openapi(
    createRouteOf(
      {
        operationId: 'startTurn',
        path: '/v1/turns',
        summary: 'Start a turn',
        description:
          'Send an `Idempotency-Key` header to start one turn however often the request is retried, from any process on the same database.',
      },
      schemas.turnRequest,
      {
        202: locatedResponse('Recorded and started; `Location` names it', TurnSchema),
        503: {
          ...errorResponse(
            'Over the bound of waiting work (serve.maxWaitingWork, with Retry-After), draining, the embedded database’s lock was lost, or the turn could not be recorded: nothing runs',
          ),
          headers: RETRY_AFTER_HEADER,
        },
      },
    ),
    async (c) => {
      const body = c.req.valid('json');
      const agent = body.agent ?? options.defaultAgent;
      /** Records and starts the turn (under `turnId` when a key's claim chose it). */
      const start = async (turnId: string | undefined): Promise<DaemonTurnSnapshot> => {
        let started: { id: string } | undefined;
        try {
          started = await options.startTurn(
            { agentId: agent, prompt: body.prompt, source: 'api' },
            turnId === undefined ? {} : { id: turnId },
          );
        } catch (error) {
          if (ControlPlaneInputError.isInstance(error)) {
            // The claim this one continues (of a slow process, not a dead one) recorded it meanwhile.
            const recorded =
              error.field === 'id' && turnId !== undefined ? await turns.find(turnId) : undefined;
            if (recorded !== undefined) return recorded;
            // A prompt the records refuse (a NUL character, a lone surrogate) is the client's to fix.
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
        return snapshot;
      };
      return answerCreate(c, {
        agent,
        operation: 'start-turn',
        newResourceId: () => `turn_${randomUUID()}`,
        create: async (turnId, takenOver) => {
          // A claim continued from a process that died (or is slow) after recording the turn: that turn.
          const recorded = turnId !== undefined && takenOver ? await turns.find(turnId) : undefined;
          return turnAnswer(recorded ?? (await start(turnId)));
        },
      }) as never;
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
      const page = await controlPlane.turns
        .page({
          agentIds: served(query.agent),
          ...definedFields(query, ['status', 'source']),
          ...pageOf(query),
        })
        .catch(refusedQuery);
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

  /** A recorded turn of an agent this daemon serves, whichever process runs or ran it; 404 otherwise. */
  const findTurn = async (id: string) => {
    const turn = await turns.find(id);
    return found(turn !== undefined && agents.includes(turn.agent) ? turn : undefined, 'turn', id);
  };

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
          'Server-sent events, `event: <type>` and `data: <JSON>`: core’s turn-start, model-request-start, text-delta, model-request-end, tool-call-start, tool-call-progress, tool-call-end (its data is a ToolCallEndEvent, see components) and turn-end, and approval-requested / approval-resolved when a call is held for an approval. For a turn of another process or an earlier run: its recorded log, followed until it ends (tool-call-end outcomes recorded by an older worker are sent in today’s vocabulary). The log so far is replayed as the reader takes it, text deltas of one model request joined. A reader that falls more than `serve.maxEventStreamBytes` behind the live events gets `event: overflow` (a StreamOverflowEvent, see components) and the stream ends: read the turn again.',
      },
      SHARED_ERRORS.noTurn.ref,
      { 200: eventStreamResponse },
    ),
    async (c) => {
      const { id } = c.req.valid('param');
      const snapshot = await findTurn(id);
      if (turns.has(id)) {
        return eventStream(c, 'switchyard turn events', (writer) => {
          let sequence = 0;
          const followed = turns.follow(id, (event) => {
            sequence += 1;
            writer.write(sseBlock(sequence, event.type, event));
            if (event.type === 'turn-end') writer.end();
          });
          if (followed === undefined) {
            writer.end();
            return () => {};
          }
          // The log so far is read as the reader takes it: it is held by the turn already.
          sequence = followed.past.length;
          writer.replay(eventBlocks(followed.past));
          if (!followed.live) writer.end();
          return followed.stop;
        });
      }
      return eventStream(c, 'switchyard turn events', async (writer) => {
        let closed = false;
        void (async () => {
          // A turn running (or waiting) elsewhere: a comment per check keeps the connection open.
          let current = snapshot;
          while (!closed && (current.status === 'running' || current.status === 'waiting-approval')) {
            await new Promise((resolve) => setTimeout(resolve, pollMs));
            writer.comment(': running elsewhere\n\n');
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
          writer.replay(eventBlocks(events));
          writer.end();
        })().catch(() => writer.end());
        return () => {
          closed = true;
        };
      });
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
      const page = await controlPlane.approvals
        .page({
          agentIds: served(query.agent),
          status: query.status ?? 'pending',
          ...(query.turn === undefined ? {} : { turnId: query.turn }),
          ...paging,
        })
        .catch(refusedQuery);
      return c.json({ approvals: page.approvals.map(approvalView), ...nextCursorOf(page.next) }, 200, json);
    },
  );

  /** An approval of an agent this daemon serves; 404 otherwise. */
  const findApproval = async (id: string): Promise<ApprovalRecord> => {
    const approval = await controlPlane.approvals.get(id);
    return found(
      approval !== undefined && agents.includes(approval.agentId) ? approval : undefined,
      'approval',
      id,
    );
  };

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
        await controlPlane.approvals
          .answer({
            id,
            decision: body.decision,
            ...(body.reason === undefined ? {} : { reason: body.reason }),
            answeredBy: 'api',
          })
          .catch((error: unknown) => {
            // A reason the records refuse (the schema checks the same): the client's to fix.
            if (!ControlPlaneInputError.isInstance(error)) throw error;
            throw new HttpError(400, 'invalid_body', `${error.field}: ${error.message}`, [error.field]);
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
    createRouteOf(
      {
        operationId: 'startWorkflow',
        path: '/v1/workflows',
        summary: 'Start a workflow (checked as the workflow tool checks it)',
        description:
          'Tasks without dependsOn start at once, in parallel; each runs as a task turn and stores a result matching its resultSchema. Send an `Idempotency-Key` header to start one workflow however often the request is retried, from any process on the same database.',
      },
      schemas.workflowRequest,
      {
        201: locatedResponse('Stored and started; `Location` names it', WorkflowSchema),
        503: {
          ...errorResponse(
            'Over the bound of waiting work (serve.maxWaitingWork, with Retry-After), or the embedded database’s lock was lost: nothing is started',
          ),
          headers: RETRY_AFTER_HEADER,
        },
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
      return answerCreate(c, {
        agent,
        operation: 'start-workflow',
        newResourceId: () => `api-key:${randomUUID()}`,
        // The resource id is the key the workflow is stored under: a continued claim that starts it
        // again gets the workflow stored first (the workflows' unique idempotency key).
        create: async (workflowKey) => {
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
              ...(workflowKey === undefined ? {} : { idempotencyKey: workflowKey }),
            });
          } catch (error) {
            if (ControlPlaneInputError.isInstance(error)) {
              throw new HttpError(400, 'invalid_body', error.message, [error.field]);
            }
            throw error;
          }
          return {
            status: 201,
            headers: { location: `/v1/workflows/${record.id}` },
            body: JSON.stringify(workflowView(agent, record)),
          };
        },
      }) as never;
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
          'Server-sent events: `event: turn` (a turn started, changed status or ended, in any process: the Turn), `event: turn-event` (`{ turnId, agent, event }`: each event of a turn this process runs; a tool-call-end event is a ToolCallEndEvent), `event: approval` (an approval asked for, answered, expired or cancelled, in any process: the Approval). Other processes’ changes arrive within a poll of the records (about a second). Each event’s `id` is its number in this process’s feed. A reader that falls more than `serve.maxEventStreamBytes` behind gets `event: overflow` (a StreamOverflowEvent, see components) and the stream ends: reconnect and reload what it shows.',
      },
      schemas.eventsQuery,
      eventStreamResponse,
    ),
    (c) => {
      const { agent } = c.req.valid('query');
      return eventStream(c, 'switchyard events', (writer) => {
        const unsubscribe = feed.subscribe((message: NumberedFeedMessage) => {
          if (agent !== undefined && message.data.agent !== agent) return;
          writer.write(feedMessageText(message));
        });
        // A comment now and then keeps idle proxies from closing the stream.
        const keepAlive = setInterval(() => writer.comment(': idle\n\n'), 15_000);
        keepAlive.unref();
        return () => {
          clearInterval(keepAlive);
          unsubscribe();
        };
      });
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
