// Run only by describe-tool-category.test.ts in a child vitest: a category that breaks every check it can.
import { defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';
import { describeToolCategory } from '../describe-tool-category';

const plain = defineWorkerTool({
  name: 'plain',
  description: 'Returns a result JSON cannot carry.',
  schema: z.object({}),
  describeActivity: () => 'Plain',
  execute: () => ({ content: 'x', details: { when: new Date(0) } }),
});

describeToolCategory(
  'broken',
  () => [
    defineWorkerTool({
      name: 'tags',
      description: 'Not strict, and no reason given.',
      schema: z.object({ tags: z.record(z.string(), z.string()) }),
      describeActivity: () => '',
      execute: () => new Promise(() => {}),
    }),
    defineWorkerTool({
      name: 'code',
      namespace: 'dup',
      description: 'Needs a sample.',
      schema: z.object({ code: z.string().regex(/^[A-Z]{3}$/) }),
      describeActivity: ({ code }) => code,
      execute: ({ code }) => ({ content: code }),
    }),
    { ...plain, name: 'bad name' },
  ],
  { abortTimeoutMs: 50, executeTimeoutMs: 100, nonStrict: { ghost: 'no such tool' } },
);
