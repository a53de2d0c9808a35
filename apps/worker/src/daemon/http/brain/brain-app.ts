import { ControlPlaneInputError } from '@switchyard/control-plane';
import type { ApiContext } from '../api-context';
import { found, HttpError } from '../http-error';
import { createResourceApp, type RouteText } from '../route-builders';
import { refuseOtherMethods, registerGetById, registerList } from '../route-registrars';
import { SHARED_ERRORS } from '../shared-error-responses';
import {
  BrainHitListSchema,
  BrainPageListSchema,
  BrainPageSchema,
  brainQuerySchemas,
  MAX_BRAIN_PAGE_LIST,
} from './brain-schemas';

/** `GET /v1/brain/pages` as the API document describes it. */
const LIST_PAGES: RouteText = {
  operationId: 'listBrainPages',
  path: '/v1/brain/pages',
  summary: "An agent's Brain pages without their text, most recently written first",
  description:
    'What `switchyard brain list` reads: the active pages of one agent (the default agent without `agent`), or with `all=true` the forgotten ones too; at most `limit` (100).',
};

/** `GET /v1/brain/pages/{id}` as the API document describes it. */
const GET_PAGE: RouteText = {
  operationId: 'getBrainPage',
  path: '/v1/brain/pages/{id}',
  summary: 'One Brain page of an agent served, forgotten or not, with its text and the versions kept',
  description:
    'What `switchyard brain show` reads. The text is the agent’s (model-written): print it with care.',
};

/** `GET /v1/brain/search` as the API document describes it. */
const SEARCH_PAGES: RouteText = {
  operationId: 'searchBrain',
  path: '/v1/brain/search',
  summary: 'What `recall` finds in an agent’s active pages, best first',
  description:
    'What `switchyard brain search` reads, under the same bounds as the tool (the query’s size, the pages considered, the time a statement may take). A query the control plane refuses is a 400 naming the field.',
};

/** A refusal of the Brain's checks as a 400 naming the query field (`tags[i]` is the `tag` field). */
function refusedBrainQuery(error: unknown): never {
  if (!ControlPlaneInputError.isInstance(error)) throw error;
  const field = error.field.startsWith('tags') ? 'tag' : error.field;
  throw new HttpError(400, 'invalid_query', error.message, [field]);
}

/**
 * The Brain's sub-app, read-only (read-only tokens may use it): an agent's pages, one page and a
 * recall, of the agents served. Pages are written only by their agents' turns (`remember`, `forget`).
 */
export function createBrainApp(context: ApiContext) {
  const { brain } = context.options.controlPlane;
  const { pagesQuery, searchQuery } = brainQuerySchemas(context.fields);
  const defaultAgent = (agent: string | undefined) => agent ?? context.options.defaultAgent;
  const app = createResourceApp();

  registerList(
    app,
    LIST_PAGES,
    pagesQuery,
    { description: 'The pages', schema: BrainPageListSchema },
    async (query) => {
      const pages = await brain.listPages({
        agentId: defaultAgent(query.agent),
        includeArchived: query.all === 'true',
        limit: query.limit ?? MAX_BRAIN_PAGE_LIST,
      });
      return { pages: pages.map(({ agentId, ...page }) => ({ ...page, agent: agentId })) };
    },
  );

  registerList(
    app,
    SEARCH_PAGES,
    searchQuery,
    { description: 'The pages found, best first', schema: BrainHitListSchema },
    async (query) => {
      const tags = query.tag === undefined ? [] : typeof query.tag === 'string' ? [query.tag] : query.tag;
      const hits = await brain
        .recall({ agentId: defaultAgent(query.agent), query: query.query, tags, limit: query.limit ?? 10 })
        .catch(refusedBrainQuery);
      return { hits };
    },
  );

  registerGetById(
    app,
    GET_PAGE,
    SHARED_ERRORS.noBrainPage.ref,
    { description: 'The page', schema: BrainPageSchema },
    async (id) => {
      const page = await brain.showPage({ pageId: id });
      const served = page !== null && context.serves(page.agentId) ? page : undefined;
      const { agentId, ...rest } = found(served, 'Brain page', id);
      return { ...rest, agent: agentId };
    },
  );

  refuseOtherMethods(app, [
    [LIST_PAGES.path, ['GET']],
    ['/v1/brain/pages/:id', ['GET']],
    [SEARCH_PAGES.path, ['GET']],
  ]);
  return app;
}
