import { z } from 'zod';

const positiveInt = z.number().int().positive();

/**
 * `categories.computer.skillLimits`: how much of an agent home's Skills a turn reads and projects
 * (`@switchyard/tools-computer`'s `SkillLimits`; a field left out keeps its default there).
 */
export const skillLimitsSchema = z
  .strictObject({
    maxSkills: positiveInt.optional(),
    maxFrontMatterBytes: positiveInt.optional(),
    maxBytesPerSkill: positiveInt.min(1024, 'must be at least 1024').optional(),
    maxBytes: positiveInt.min(1024, 'must be at least 1024').optional(),
  })
  .superRefine((limits, context) => {
    // tools-computer's defaults: 2 KiB per skill, 32 KiB in all.
    if ((limits.maxBytesPerSkill ?? 2048) > (limits.maxBytes ?? 32 * 1024)) {
      context.addIssue({
        code: 'custom',
        path: ['maxBytesPerSkill'],
        message: 'must be at most maxBytes (32768 unless set)',
      });
    }
  });
