import { z } from '@hono/zod-openapi';
import type { AgentFields } from '../shared-schemas';

/** One tool of an agent's manifest, as `switchyard tools --json` prints it. */
export const ToolManifestRowSchema = z
  .strictObject({
    category: z.string().openapi({ example: 'computer' }),
    key: z
      .string()
      .openapi({ description: 'Its dispatch key: name, or namespace.name', example: 'read_file' }),
    strict: z.boolean().openapi({ description: 'Sent with strict: true' }),
    fallbackReason: z.string().optional().openapi({ description: 'Why it is sent non-strict' }),
    movedKeywords: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Constraints moved into descriptions for strict mode (still enforced)' }),
    deferred: z.boolean().openapi({ description: 'Kept behind Tool Search' }),
    readOnly: z.boolean(),
    destructive: z.boolean(),
    bytes: z.number().int().openapi({ description: 'UTF-8 bytes of its schema' }),
    description: z.string().openapi({ description: 'The description the model reads' }),
    parameters: z.record(z.string(), z.unknown()).openapi({
      description:
        "The parameters' JSON Schema exactly as the model gets it (the strict projection when strict)",
    }),
  })
  .openapi('ToolManifestRow');

/** The tool manifest an agent's next text turn would send, as `switchyard tools --json` prints it. */
export const ToolManifestSchema = z
  .strictObject({
    agent: z.string(),
    toolSearch: z.enum(['native', 'client']).openapi({ description: 'How deferred tools are offered' }),
    tools: z.array(ToolManifestRowSchema),
    skipped: z
      .array(z.strictObject({ server: z.string(), tool: z.string(), kind: z.string(), reason: z.string() }))
      .openapi({
        description:
          'MCP tools left out, and why (`kind`): a definition refused (`invalid-definition`), a tool the server runs only as a task, or a tool past one of the server’s budgets (`over-budget`: tools, pages or schema bytes)',
      }),
    totals: z
      .strictObject({
        tools: z.number().int(),
        strict: z.number().int(),
        deferred: z.number().int(),
        bytes: z.number().int().openapi({ description: 'The sum of the tools’ schema bytes' }),
      })
      .openapi({ description: 'Counts and sizes over tools' }),
    requestToolsBytes: z.number().int().openapi({ description: 'UTF-8 bytes of the request’s tools array' }),
    requestToolsEntries: z.number().int().openapi({ description: 'Entries of the request’s tools array' }),
    skills: z
      .strictObject({
        loaded: z
          .array(z.string())
          .openapi({ description: 'The Skills the turn would project, in folder order' }),
        skipped: z
          .array(z.strictObject({ file: z.string(), line: z.number().int(), message: z.string() }))
          .openapi({ description: 'Skills left out: the file, the line and the reason' }),
      })
      .optional()
      .openapi({ description: 'The agent’s Skills, when its turns read them' }),
  })
  .openapi('ToolManifest');

/** The query of `GET /v1/tools`, which checks `agent` against the agents served (`agentFields`). */
export function toolsQuerySchema({ agent }: AgentFields) {
  return z.strictObject({ agent: agent.optional() });
}
