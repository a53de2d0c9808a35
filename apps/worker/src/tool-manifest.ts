import { collectToolSchemas, type ResponsesToolSchema, type ToolSearchMode } from '@switchyard/core';
import type { McpServers, McpSkippedTool } from '@switchyard/tools-mcp';
import type { TurnAgent } from './config/resolve-agent';
import type { WorkerConfig } from './config/worker-config';
import type { SkillManifest } from './skill-manifest';
import { inspectTextTurnSections } from './text-turn';

/** One tool of the manifest, as `switchyard tools --json` prints it and `GET /v1/tools` answers it. */
export interface ToolManifestRow {
  /** The category that contributed it (`todo`, `computer`, `web`, ...). */
  category: string;
  /** Its dispatch key (`name` or `namespace.name`). */
  key: string;
  /** Sent with `strict: true`. */
  strict: boolean;
  /** Why it is sent non-strict, when it is and did not opt out (`external schema sent unchanged` for MCP). */
  fallbackReason?: string;
  /** Constraints strict mode does not take that the projection moved into descriptions (still enforced). */
  movedKeywords?: string[];
  /** Kept behind Tool Search. */
  deferred: boolean;
  /** Reads only. */
  readOnly: boolean;
  /** May change or delete something (an unattended turn's approval policy applies). */
  destructive: boolean;
  /** UTF-8 bytes of its schema. */
  bytes: number;
  /** The description the model reads. */
  description: string;
  /** The parameters' JSON Schema exactly as the model gets it (the strict projection when strict). */
  parameters: Record<string, unknown>;
}

/** Each function tool of a request's `tools` array by its dispatch key (`name`, or `namespace.name`). */
function functionToolsByKey(tools: readonly ResponsesToolSchema[]) {
  const byKey = new Map<string, { description: string; parameters: Record<string, unknown> }>();
  for (const tool of tools) {
    if (tool.type === 'function') byKey.set(tool.name, tool);
    if (tool.type === 'namespace')
      for (const inner of tool.tools) byKey.set(`${tool.name}.${inner.name}`, inner);
  }
  return byKey;
}

/** The tools an agent's next text turn would send. */
export interface ToolManifest {
  /** The agent. */
  agent: string;
  /** How deferred tools are offered (`native`, `client`, `off`). */
  toolSearch: ToolSearchMode;
  /** Every tool, in the order the turn sends them. */
  tools: ToolManifestRow[];
  /** MCP tools left out because core refused their definition. */
  skipped: McpSkippedTool[];
  /** Counts and sizes over `tools`: `bytes` is the sum of their schemas' bytes. */
  totals: { tools: number; strict: number; deferred: number; bytes: number };
  /** UTF-8 bytes of the request's whole `tools` array. */
  requestToolsBytes: number;
  /** Entries of the request's `tools` array (namespaces and `tool_search` count as one each). */
  requestToolsEntries: number;
  /** The Skills the turn would read, and those left out with why (`readSkillManifest`); absent without Skills. */
  skills?: SkillManifest;
}

/**
 * The manifest `agent`'s next text turn would send, composed exactly as the turn composes its tools
 * (`inspectTextTurnSections`): each tool's category, strict or why not, deferred or not, access and
 * bytes. `switchyard tools` prints it; `switchyard serve` answers it at `GET /v1/tools`, with its
 * already-open MCP connections.
 *
 * Contract: reads only: nothing is opened or created (MCP tools are read from `mcp` when given, left
 * out otherwise); `agent.home` is only named, never touched.
 */
export function buildToolManifest(options: {
  config: WorkerConfig;
  agent: TurnAgent;
  mcp?: McpServers | undefined;
  toolSearch: ToolSearchMode;
}): ToolManifest {
  const { config, agent, mcp, toolSearch } = options;
  const sections = inspectTextTurnSections({ config, agent, ...(mcp === undefined ? {} : { mcp }) });
  const tools = sections.flatMap((section) => section.tools);
  const categoryOf = new Map(
    sections.flatMap((section) => section.tools.map((tool) => [tool, section.category] as const)),
  );
  const manifest = collectToolSchemas(tools, { toolSearch });
  // Native Tool Search sends every tool (deferred ones marked), so each one's schema is there; the
  // conversion is cached per schema, so the second collection costs no conversion.
  const schemas = functionToolsByKey(
    toolSearch === 'native' ? manifest.tools : collectToolSchemas(tools, { toolSearch: 'native' }).tools,
  );
  const rows: ToolManifestRow[] = manifest.entries.map((entry, index) => {
    const tool = tools[index];
    return {
      category: (tool === undefined ? undefined : categoryOf.get(tool)) ?? '?',
      key: entry.key,
      strict: entry.strict,
      ...(entry.fallbackReason === undefined ? {} : { fallbackReason: entry.fallbackReason }),
      ...(entry.movedKeywords === undefined ? {} : { movedKeywords: entry.movedKeywords }),
      deferred: entry.deferred,
      readOnly: tool?.isReadOnly === true,
      destructive: tool?.isDestructive === true,
      bytes: entry.bytes,
      description: schemas.get(entry.key)?.description ?? '',
      parameters: schemas.get(entry.key)?.parameters ?? {},
    };
  });
  return {
    agent: agent.id,
    toolSearch,
    tools: rows,
    skipped: mcp?.skippedTools() ?? [],
    totals: {
      tools: rows.length,
      strict: rows.filter((row) => row.strict).length,
      deferred: rows.filter((row) => row.deferred).length,
      bytes: rows.reduce((sum, row) => sum + row.bytes, 0),
    },
    requestToolsBytes: manifest.bytes,
    requestToolsEntries: manifest.tools.length,
  };
}
