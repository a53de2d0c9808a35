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
    defineWorkerTool({
      name: 'shout',
      description: 'Passes on one sample value per field; breaks on an empty string and on zero.',
      schema: z.object({ text: z.string(), times: z.number().int().min(0).max(3) }),
      describeActivity: ({ text }) => `Shouting ${(text[0] as string).toUpperCase()}`,
      execute: ({ text, times }) => {
        if (times === 0) throw new RangeError('times must not be zero');
        return { content: text.repeat(times) };
      },
    }),
  ],
  {
    abortTimeoutMs: 50,
    executeTimeoutMs: 100,
    nonStrict: { ghost: 'no such tool' },
    samples: { shout: [{ text: 'hey', times: 1 }] },
  },
);
