import { checkBearerToken } from '../../check-bearer-token';
import type { ApiContext } from '../api-context';
import { createResourceApp, jsonResponse, listRoute, NO_STORE } from '../route-builders';
import { refuseOtherMethods } from '../route-registrars';
import { SessionQuerySchema, SessionSchema } from './session-schemas';

/** The session's sub-app: `GET /v1/session`, who the caller is to this daemon and what it serves. */
export function createSessionApp({ options }: ApiContext) {
  const app = createResourceApp();
  app.openapi(
    listRoute(
      {
        operationId: 'getSession',
        path: '/v1/session',
        summary: 'Who the caller is to this daemon (full or read-only access) and the agents it serves',
        description:
          'A console calls it first: 401 means it needs a token. `access` is `read-only` for the read-only token, whose requests may only GET.',
      },
      SessionQuerySchema,
      jsonResponse('The session', SessionSchema),
    ),
    (c) => {
      const header = c.req.header('authorization');
      // The token middleware let the request through: without the bearer token it carried the read-only one.
      const readOnly = options.token !== undefined && !checkBearerToken(header, options.token);
      return c.json(
        {
          access: readOnly ? ('read-only' as const) : ('full' as const),
          agents: [...options.agents],
          defaultAgent: options.defaultAgent,
          version: options.version,
          continueAnsweredWithinMs: options.continueAnsweredWithinMs ?? 10_000,
        },
        200,
        NO_STORE,
      );
    },
  );
  refuseOtherMethods(app, [['/v1/session', ['GET']]]);
  return app;
}
