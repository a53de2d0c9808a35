import { defineWorkerTool, type ZodWorkerToolDefinition } from '@switchyard/core';
import { z } from 'zod';

const noParams = z.object({});

/**
 * A tool that takes no params, for tests about what `execute` (or the activity label) does: the
 * name doubles as the description, and the label is the name unless `describeActivity` is given.
 */
export function paramlessTool(
  name: string,
  definition: Pick<ZodWorkerToolDefinition<typeof noParams>, 'execute'> &
    Partial<Pick<ZodWorkerToolDefinition<typeof noParams>, 'describeActivity'>>,
) {
  return defineWorkerTool({
    name,
    description: name,
    schema: noParams,
    describeActivity: () => name,
    ...definition,
  });
}
