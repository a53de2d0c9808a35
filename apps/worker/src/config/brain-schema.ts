import { z } from 'zod';

const positiveInt = z.number().int().positive();

/**
 * `categories.brain`: the Brain's limits (the control plane's `brain` options; a field left out keeps
 * its default there): page size, each agent's quota, how long history is kept, the cost of a recall.
 */
export const brainSchema = z
  .strictObject({
    maxPageBytes: positiveInt.max(512 * 1024, 'must be at most 524288 (512 KiB)').optional(),
    maxPagesPerAgent: positiveInt.optional(),
    maxBytesPerAgent: positiveInt.optional(),
    retentionDays: positiveInt.max(36_500).optional(),
    pruneIntervalSeconds: positiveInt.max(2_147_483).optional(),
    maxRecallRows: positiveInt.max(100_000).optional(),
    recallTimeoutMs: positiveInt.max(2_147_483_647).optional(),
  })
  .superRefine((brain, context) => {
    // The control plane's default page size is 64 KiB; a quota must hold one page of it.
    const page = brain.maxPageBytes ?? 64 * 1024;
    if (brain.maxBytesPerAgent !== undefined && brain.maxBytesPerAgent < Math.max(page, 1024)) {
      context.addIssue({
        code: 'custom',
        path: ['maxBytesPerAgent'],
        message: `must hold at least one page of maxPageBytes (${page})`,
      });
    }
  });
