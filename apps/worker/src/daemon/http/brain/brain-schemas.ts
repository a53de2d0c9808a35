import { z } from '@hono/zod-openapi';
import type { AgentFields } from '../shared-schemas';

/** The most pages `GET /v1/brain/pages` gives (and its default): what `switchyard brain list` shows. */
export const MAX_BRAIN_PAGE_LIST = 100;
/** The most pages a recall gives (the control plane's own bound). */
const MAX_BRAIN_HITS = 50;
/** The most tags a recall may name (the control plane keeps at most 20 per page). */
const MAX_QUERY_TAGS = 20;

const nullableTime = z.string().nullable();

/** One Brain page without its text. */
export const BrainPageSummarySchema = z
  .strictObject({
    pageId: z.string().openapi({ example: '5b0c6f1e-4a57-4d0e-9d0e-2d6f3c1b8a10' }),
    agent: z.string(),
    title: z.string(),
    tags: z.array(z.string()),
    version: z.number().int(),
    bytes: z.number().int().openapi({ description: 'The size of its text in bytes (UTF-8)' }),
    createdAt: z.string(),
    updatedAt: z.string().openapi({ description: 'When its current version was written' }),
    archivedAt: nullableTime.openapi({ description: 'When it was forgotten, or null' }),
  })
  .openapi('BrainPageSummary');

/** An agent's pages, most recently written first. */
export const BrainPageListSchema = z
  .strictObject({ pages: z.array(BrainPageSummarySchema) })
  .openapi('BrainPageList');

/** One page with its text and the versions kept. */
export const BrainPageSchema = z
  .strictObject({
    pageId: z.string(),
    agent: z.string(),
    title: z.string(),
    body: z.string().openapi({ description: 'Its text (Markdown), as the agent wrote it' }),
    tags: z.array(z.string()),
    version: z.number().int(),
    latestVersion: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    archivedAt: nullableTime,
    versions: z
      .array(
        z.strictObject({
          version: z.number().int(),
          title: z.string(),
          bytes: z.number().int(),
          writtenAt: z.string(),
        }),
      )
      .openapi({ description: 'The versions kept, oldest first, the current one last' }),
  })
  .openapi('BrainPage');

/** What a recall found, best first. */
export const BrainHitListSchema = z
  .strictObject({
    hits: z.array(
      z.strictObject({
        pageId: z.string(),
        title: z.string(),
        tags: z.array(z.string()),
        snippet: z
          .string()
          .openapi({ description: 'Where the page matches, from its first 4,096 characters' }),
        version: z.number().int(),
        updatedAt: z.string(),
        matchedTerms: z.number().int(),
        everyTerm: z.boolean(),
        rank: z.number(),
      }),
    ),
  })
  .openapi('BrainHitList');

/** The queries of the Brain's routes, which check `agent` against the agents served (`agentFields`). */
export function brainQuerySchemas({ agent }: AgentFields) {
  const limitOf = (most: number) => {
    const words = `expected a whole number from 1 to ${most}`;
    return z.coerce
      .number({ error: words })
      .int({ error: words })
      .min(1, { error: words })
      .max(most, { error: words })
      .optional();
  };
  return {
    pagesQuery: z.strictObject({
      agent: agent.optional(),
      all: z
        .enum(['true', 'false'], { error: "expected 'true' or 'false'" })
        .optional()
        .openapi({ description: '`true` adds forgotten pages' }),
      limit: limitOf(MAX_BRAIN_PAGE_LIST).openapi({ description: 'At most this many (default 100)' }),
    }),
    searchQuery: z.strictObject({
      agent: agent.optional(),
      query: z.string().min(1, { error: 'expected a non-empty query' }).openapi({
        description:
          'What `recall` takes: words, "a quoted phrase", -word to leave out, or (at most 2,048 bytes)',
      }),
      tag: z
        .union([z.string(), z.array(z.string()).max(MAX_QUERY_TAGS)])
        .optional()
        .openapi({ description: 'Only pages with this tag (repeatable)' }),
      limit: limitOf(MAX_BRAIN_HITS).openapi({ description: 'At most this many pages (default 10)' }),
    }),
  };
}
