import { defineWorkerTool, type UntrustedMarker } from '@switchyard/core';
import { z } from 'zod';
import type { BrainHit, BrainService } from './brain-service';
import { failure, plural, shortTitle } from './tool-helpers';
import { brainContentMarker, wrapBrainContent } from './untrusted-brain-content';

/** Pages `recall` returns when the model gives no `limit`. */
const DEFAULT_LIMIT = 5;

const schema = z.object({
  query: z
    .string()
    .describe(
      'What to look for, in words the page would use. Works like a web search: "a quoted phrase", -word to leave out, OR between alternatives',
    ),
  tags: z.array(z.string()).optional().describe('Only pages carrying every one of these tags'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe(`Most pages to return; default ${DEFAULT_LIMIT}`),
});

function formatHit(marker: UntrustedMarker, hit: BrainHit): string {
  return wrapBrainContent(
    marker,
    {
      page: hit.pageId,
      title: hit.title,
      ...(hit.tags.length === 0 ? {} : { tags: hit.tags.join(', ') }),
      version: String(hit.version),
      updated: hit.updatedAt,
    },
    hit.snippet,
  );
}

/** `recall`: full-text search over the agent's pages, best first, with snippets. Read-only. */
export function createRecallTool(brain: BrainService, agentId: string) {
  return defineWorkerTool({
    name: 'recall',
    description:
      'Search your Brain (your long-term notes) for pages about something: returns the best pages first, ' +
      'each with its id, title, tags and a snippet. Read a whole page with get_page. Read-only.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ query }) => `Recalling "${shortTitle(query)}"`,
    describeCompletedActivity: ({ query }, result) =>
      result.isError
        ? `Could not recall "${shortTitle(query)}"`
        : `Recalled ${plural(Array.isArray(result.details) ? result.details.length : 0, 'page')} for "${shortTitle(query)}"`,
    execute: async ({ query, tags, limit }) => {
      if (query.trim() === '') {
        return {
          content: 'Give recall a query: the words a page you are looking for would use.',
          isError: true,
        };
      }
      let hits: BrainHit[];
      try {
        hits = await brain.recall({
          agentId,
          query,
          limit: limit ?? DEFAULT_LIMIT,
          ...(tags === undefined || tags.length === 0 ? {} : { tags }),
        });
      } catch (error) {
        return failure('search your Brain', error);
      }
      const filter = tags === undefined || tags.length === 0 ? '' : ` tagged ${tags.join(', ')}`;
      if (hits.length === 0) {
        return {
          content: `Nothing in your Brain${filter} matches ${JSON.stringify(query)}. Try other words, or fewer.`,
          details: [],
        };
      }
      const { marker, notice } = brainContentMarker();
      return {
        content: [
          `${plural(hits.length, 'page')}${filter} for ${JSON.stringify(query)}, best first. ${notice}`,
          ...hits.map((hit) => formatHit(marker, hit)),
          'Read a whole page with get_page({ pageId }).',
        ].join('\n'),
        details: hits.map(({ snippet: _snippet, ...hit }) => hit),
      };
    },
  });
}
