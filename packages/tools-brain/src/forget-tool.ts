import { defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';
import type { BrainPage, BrainService } from './brain-service';
import { failure } from './tool-helpers';

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
      let page: BrainPage | null;
      try {
        page = await brain.forget({ agentId, pageId });
      } catch (error) {
        return failure('forget the page', error);
      }
      if (page === null) {
        return { content: `You have no page ${pageId}. Find page ids with recall.`, isError: true };
      }
      return {
        content: `Forgot page ${page.pageId} "${page.title}": recall and get_page no longer show it (it is archived, not deleted).`,
        details: { pageId: page.pageId, title: page.title, archivedAt: page.archivedAt },
      };
    },
  });
}
