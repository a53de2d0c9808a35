import { createRoute } from '@hono/zod-openapi';
import type { ApiContext } from '../api-context';
import { createResourceApp, jsonResponse, NO_STORE } from '../route-builders';
import { refuseOtherMethods } from '../route-registrars';
import { COMMON_ERRORS } from '../shared-error-responses';
import { HealthSchema } from './health-schemas';

/**
 * `GET /healthz` of the API's port: serving (200), or draining or lock-lost (503), with the turns
 * running now. No token and never shed, but the request guard applies (`useMiddlewareChain`).
 */
export function createHealthzApp({ options }: ApiContext) {
  const app = createResourceApp();
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
      const scripted = options.scriptedModel;
      return c.json(
        {
          status: state,
          runningTurns: options.turns.running,
          ...(sandbox === undefined ? {} : { sandbox }),
          ...(scripted === undefined ? {} : { scriptedModel: { summary: scripted } }),
        },
        state === 'serving' ? 200 : 503,
        NO_STORE,
      );
    },
  );
  refuseOtherMethods(app, [['/healthz', ['GET', 'HEAD']]]);
  return app;
}
