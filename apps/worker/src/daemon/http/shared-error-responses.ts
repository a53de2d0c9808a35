import type { OpenAPIHono } from '@hono/zod-openapi';
import { ErrorSchema } from './shared-schemas';

// The error responses several routes answer, described once in the document's
// `components.responses` and referred to by each route that answers them.

/** The `Retry-After` header of a 409 or 503: when to send the request again. */
export const RETRY_AFTER_HEADER = {
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

/** The shared error responses, by what they say. */
export const SHARED_ERRORS = {
  unauthorized: sharedError('Unauthorized', 'No valid bearer token'),
  forbidden: sharedError('Forbidden', 'A cross-site browser request, or the read-only token on a write'),
  notJson: sharedError('UnsupportedMediaType', 'A body that is not JSON'),
  foreignHost: sharedError('MisdirectedRequest', 'A Host that is not one of the daemon’s own'),
  invalid: sharedError(
    'InvalidRequest',
    'A body or query that does not match the schema (`fields` names each problem)',
  ),
  tooLarge: sharedError('PayloadTooLarge', 'A body over the size limit'),
  bodyTimeout: sharedError(
    'BodyTimeout',
    'A body that did not all arrive within serve.bodyTimeoutMs: nothing was done, and the connection is closed',
  ),
  noTurn: sharedError('TurnNotFound', 'No such turn'),
  noApproval: sharedError('ApprovalNotFound', 'No such approval'),
  noWorkflow: sharedError('WorkflowNotFound', 'No such workflow'),
  noBrainPage: sharedError('BrainPageNotFound', 'No such Brain page of an agent served'),
  overloaded: sharedError(
    'Overloaded',
    'Over the daemon’s bound of waiting work (serve.maxWaitingWork), or of event streams open at once for an event stream (serve.maxEventStreams): nothing was done; send it again after Retry-After',
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
export function registerSharedErrors(app: Pick<OpenAPIHono, 'openAPIRegistry'>): void {
  app.openAPIRegistry.register('Error', ErrorSchema);
  for (const { name, response } of Object.values(SHARED_ERRORS)) {
    app.openAPIRegistry.registerComponent('responses', name, response);
  }
}

/** The errors any authenticated route may answer. */
export const COMMON_ERRORS = {
  401: SHARED_ERRORS.unauthorized.ref,
  403: SHARED_ERRORS.forbidden.ref,
  415: SHARED_ERRORS.notJson.ref,
  421: SHARED_ERRORS.foreignHost.ref,
} as const;

/** The errors of a route that reads a body or a query. */
export const BODY_ERRORS = {
  400: SHARED_ERRORS.invalid.ref,
  408: SHARED_ERRORS.bodyTimeout.ref,
  413: SHARED_ERRORS.tooLarge.ref,
} as const;
