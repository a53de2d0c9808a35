import { OpenAPIHono } from '@hono/zod-openapi';
import { createAgentsApp } from './agents/agents-app';
import { createApiContext } from './api-context';
import { createApprovalsApp } from './approvals/approvals-app';
import { createBrainApp } from './brain/brain-app';
import { createConsoleApp } from './console/console-app';
import type { DaemonHttpApiOptions } from './daemon-http-api-options';
import { registerStreamEventSchemas } from './events/event-schemas';
import { createEventsApp } from './events/events-app';
import { createHealthzApp } from './health/healthz-app';
import { answerError, HttpError } from './http-error';
import { useMiddlewareChain } from './middleware-chain';
import type { ApiBindings } from './route-builders';
import { refuseOtherMethods } from './route-registrars';
import { createSchedulesApp } from './schedules/schedules-app';
import { createSessionApp } from './session/session-app';
import { registerSharedErrors } from './shared-error-responses';
import { createToolsApp } from './tools/tools-app';
import { createTurnsApp } from './turns/turns-app';
import { createWorkflowsApp } from './workflows/workflows-app';

/**
 * The resources' sub-apps, in the order they are mounted: the order of the document's paths, and of
 * the components its routes bring in.
 */
const RESOURCES = [
  createHealthzApp,
  createTurnsApp,
  createApprovalsApp,
  createWorkflowsApp,
  createEventsApp,
  createSessionApp,
  createSchedulesApp,
  createToolsApp,
  createAgentsApp,
  createBrainApp,
] as const;

/**
 * The daemon's HTTP API on Hono with `@hono/zod-openapi`: routes, validation and the OpenAPI 3.1
 * document (`/v1/openapi.json`) from one set of Zod schemas, one sub-app per resource (`http/*`):
 * `/healthz`, turns (start, list, read, follow, cancel), approvals (list, read, answer), workflows
 * (start, list, read, cancel), `/v1/events` (every turn and approval of the agents served, for a
 * console), the session, schedules, the tool manifest and the agents' Brain pages (read-only); and the operator console's files at `/`,
 * `/index.html` and `/assets/*` (`console`: no token needed, the request guard applies, left out of
 * the document).
 *
 * Contract: every error is JSON `{ error: { code, message, fields? } }`, the framework's own
 * included: 421 for a foreign `Host`, 403 for a cross-site browser request, 415 for a body that is not
 * JSON (`checkRequest`, before any route or token check, `/healthz` included); 401 without a token
 * when one is set, 403 for the read-only token on anything but `GET`; 400 for a bad body or query
 * (naming the fields), 404, 405 (with `Allow`), 409 for an approval already decided or a turn that
 * ended, 413 for a body over `maxBodyBytes`, 503 for a new turn while draining, after the embedded
 * database's lock was lost (`lock_lost`), or when it cannot be recorded. With a `shedder`, a request
 * it refuses gets 503 `overloaded` with `Retry-After` before any other check (`/healthz` and the
 * console's files are never refused). `POST /v1/turns` and `POST /v1/workflows` take an
 * `Idempotency-Key` (`answerCreate`): the first answer again for the same key and body, 409 with
 * `Retry-After` while it is being made, 422 for another body, 400 for a key that is not one. Every
 * event stream holds at most `maxEventStreamBytes` for its reader (`boundedEventStream`).
 */
export function createDaemonHttpApi(options: DaemonHttpApiOptions): OpenAPIHono<ApiBindings> {
  const context = createApiContext(options);
  const site = options.console ?? { status: 'disabled' };
  const app = new OpenAPIHono<ApiBindings>();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'The bearer token (serve.tokenEnv), or the read-only token (serve.readTokenEnv) for GET. Needed off loopback; on loopback when one is set.',
  });
  registerStreamEventSchemas(app);
  registerSharedErrors(app);
  app.onError(answerError(options.log));
  app.notFound((c) => {
    throw new HttpError(404, 'not_found', `no route for ${c.req.path}`);
  });
  useMiddlewareChain(app, { ...options, site });
  for (const createResource of RESOURCES) app.route('/', createResource(context));
  app.route('/', createConsoleApp(site));
  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard worker daemon',
      version: options.version,
      description:
        'The HTTP API of `switchyard serve`: turns, approvals of held tool calls, workflows and a live event feed. Every error is `{ error: { code, message, fields? } }`.',
    },
  });
  refuseOtherMethods(app, [['/v1/openapi.json', ['GET']]]);
  return app;
}
