import { defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';
import type { BrainService } from './brain-service';
import { noPage, pageOrResult } from './tool-helpers';

const schema = z.object({ pageId: z.string().describe('The id of the page to forget') });

/** `forget`: archives one of the agent's pages (kept for the operator, gone from recall and get_page). */
export function createForgetTool(brain: BrainService, agentId: string) {
  return defineWorkerTool({
    name: 'forget',
    description:
      'Forget a page of your Brain by its id: recall and get_page no longer show it. Use it for a page ' +
      'that is wrong or obsolete; to correct a page, rewrite it with remember instead.',
    schema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: ({ pageId }) => `Forgetting page ${pageId}`,
    describeCompletedActivity: ({ pageId }, result) =>
      result.isError ? `Could not forget page ${pageId}` : `Forgot page ${pageId}`,
    execute: async ({ pageId }) => {
      const found = await pageOrResult(
        'forget the page',
        () => brain.forget({ agentId, pageId }),
        noPage(pageId),
      );
      if ('result' in found) return found.result;
      const { page } = found;
      return {
        content: `Forgot page ${page.pageId} "${page.title}": recall and get_page no longer show it (it is archived, not deleted).`,
        details: { pageId: page.pageId, title: page.title, archivedAt: page.archivedAt },
      };
    },
  });
}
