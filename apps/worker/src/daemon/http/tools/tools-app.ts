import type { ApiContext } from '../api-context';
import { HttpError } from '../http-error';
import {
  authenticatedRoute,
  createResourceApp,
  errorResponse,
  jsonResponse,
  NO_STORE,
} from '../route-builders';
import { refuseOtherMethods } from '../route-registrars';
import { BODY_ERRORS } from '../shared-error-responses';
import { ToolManifestSchema, toolsQuerySchema } from './tool-schemas';

/** The tools' sub-app: `GET /v1/tools`, the tool manifest an agent's next text turn would send. */
export function createToolsApp(context: ApiContext) {
  const { options } = context;
  const app = createResourceApp();
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
      { query: toolsQuerySchema(context.fields) },
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
      return c.json(await options.toolManifest(agent ?? options.defaultAgent), 200, NO_STORE);
    },
  );
  refuseOtherMethods(app, [['/v1/tools', ['GET']]]);
  return app;
}
