import { defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';
import type { BrainService, BrainWriteOutcome } from './brain-service';
import { failure, shortTitle } from './tool-helpers';

// Module level: schema conversion is cached per schema object, so per-turn creation costs nothing.
const schema = z.object({
  title: z.string().describe('A short title naming the topic, e.g. "Deploying the billing service"'),
  body: z
    .string()
    .describe('The page in Markdown: what you learned, with the details you will need to act on it later'),
  tags: z.array(z.string()).optional().describe('A few short tags, e.g. ["billing", "deploys"]'),
  pageId: z
    .string()
    .optional()
    .describe(
      'The id of a page to rewrite (from recall or an earlier remember); omit it to write by title: a title you already have rewrites that page',
    ),
});

function describeOutcome({ status, page }: BrainWriteOutcome): string {
  const named = `page ${page.pageId} "${page.title}"`;
  switch (status) {
    case 'created':
      return `Created ${named} (version 1).`;
    case 'updated':
      return `Updated ${named} to version ${page.version}; version ${page.version - 1} is kept.`;
    case 'unchanged':
      return `${named[0]?.toUpperCase()}${named.slice(1)} already says exactly this; nothing changed (version ${page.version}).`;
  }
}

/** `remember`: writes or rewrites one of the agent's pages, keeping the previous version. */
export function createRememberTool(brain: BrainService, agentId: string) {
  return defineWorkerTool({
    name: 'remember',
    // Writing the same page again changes nothing (the Brain answers `unchanged`, no new version):
    // a call run again after its worker stopped stores the page once.
    idempotent: true,
    description:
      'Write a page to your Brain: your long-term notes, kept across conversations and readable by the ' +
      'sub-agents of your workflows. One topic per page: a short title, the page in Markdown, a few tags. ' +
      'Writing a title you already have (or giving its pageId) rewrites that page: write the whole page ' +
      'again, since the new text replaces the old; the previous version is kept. Find pages with recall.',
    schema,
    executionMode: 'sequential',
    describeActivity: ({ title }) => `Remembering "${shortTitle(title)}"`,
    describeCompletedActivity: ({ title }, result) =>
      result.isError ? `Could not remember "${shortTitle(title)}"` : `Remembered "${shortTitle(title)}"`,
    execute: async ({ title, body, tags, pageId }) => {
      let outcome: BrainWriteOutcome;
      try {
        outcome = await brain.remember({
          agentId,
          title,
          body,
          ...(tags === undefined ? {} : { tags }),
          ...(pageId === undefined ? {} : { pageId }),
        });
      } catch (error) {
        return failure('write the page', error);
      }
      const { page } = outcome;
      return {
        content: describeOutcome(outcome),
        details: { status: outcome.status, pageId: page.pageId, title: page.title, version: page.version },
      };
    },
  });
}
