import { defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';
import type { BrainPage, BrainService } from './brain-service';
import { sliceUtf8 } from './slice-utf8';
import { noPage, pageOrResult } from './tool-helpers';
import { brainContentMarker, wrapBrainContent } from './untrusted-brain-content';

/** Bytes of a page `get_page` returns when the model gives no `maxBytes`. */
const DEFAULT_PAGE_BYTES = 16 * 1024;
/** The most bytes one `get_page` call returns. */
const MAX_PAGE_BYTES = 64 * 1024;

const schema = z.object({
  pageId: z.string().describe('The page id, from recall or remember'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('The byte to start reading at, to read on in a long page; default 0'),
  maxBytes: z
    .number()
    .int()
    .min(256)
    .max(MAX_PAGE_BYTES)
    .optional()
    .describe(`Most bytes to return; default ${DEFAULT_PAGE_BYTES}`),
  version: z.number().int().min(1).optional().describe('An earlier version to read; default the current one'),
});

function header(page: BrainPage): string {
  const version =
    page.version === page.latestVersion
      ? `version ${page.version}`
      : `version ${page.version} of ${page.latestVersion}, not the current one`;
  return `Page ${page.pageId} (${version}; written ${page.updatedAt}).`;
}

/** `get_page`: one of the agent's pages by id, a byte-capped slice at a time. Read-only. */
export function createGetPageTool(brain: BrainService, agentId: string) {
  return defineWorkerTool({
    name: 'get_page',
    description:
      'Read one page of your Brain by its id (from recall), or an earlier version of it. A long page comes ' +
      `${DEFAULT_PAGE_BYTES} bytes at a time: read on with the offset the answer gives. Read-only.`,
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ pageId }) => `Reading page ${pageId}`,
    describeCompletedActivity: ({ pageId }, result) =>
      result.isError ? `Could not read page ${pageId}` : `Read page ${pageId}`,
    execute: async ({ pageId, offset, maxBytes, version }) => {
      const found = await pageOrResult(
        'read the page',
        () => brain.getPage({ agentId, pageId, ...(version === undefined ? {} : { version }) }),
        version === undefined
          ? noPage(pageId)
          : `You have no page ${pageId} with a version ${version}. Read its current version without version.`,
      );
      if ('result' in found) return found.result;
      const { page } = found;
      const slice = sliceUtf8(page.body, offset ?? 0, maxBytes ?? DEFAULT_PAGE_BYTES);
      const details = {
        pageId: page.pageId,
        title: page.title,
        version: page.version,
        start: slice.start,
        end: slice.end,
        totalBytes: slice.total,
      };
      if (slice.start >= slice.total) {
        return {
          content: `Offset ${offset} is past the end of page ${page.pageId} (${slice.total} bytes).`,
          isError: true,
          details,
        };
      }
      const footer =
        slice.end < slice.total
          ? `[Bytes ${slice.start}-${slice.end} of ${slice.total}. Call get_page with offset=${slice.end} to read on.]`
          : slice.start > 0
            ? `[Bytes ${slice.start}-${slice.end} of ${slice.total}: the end of the page.]`
            : undefined;
      // The title and tags are the page's text too: they go inside the marker, as attributes.
      const { marker, notice } = brainContentMarker();
      return {
        content: [
          header(page),
          notice,
          wrapBrainContent(
            marker,
            {
              page: page.pageId,
              title: page.title,
              ...(page.tags.length === 0 ? {} : { tags: page.tags.join(', ') }),
            },
            slice.text,
          ),
          ...(footer === undefined ? [] : [footer]),
        ].join('\n'),
        details,
      };
    },
  });
}
