import { readFileSync } from 'node:fs';
import { collectToolSchemas, defineWorkerTool, type JSONSchemaObject } from '@switchyard/core';
import { toStrictJSONSchema } from '@switchyard/core/internal';
import { heading, report } from '../measure';

interface CorpusServer {
  server: string;
  version: string;
  origin: string;
  tools: Array<{ name: string; inputSchema: JSONSchemaObject }>;
}

/** Keywords the projection refused before it learnt to move them into descriptions. */
const FORMERLY_REFUSED = /^(minLength|maxLength|uniqueItems|minProperties|maxProperties) /;

/** One server's counts. */
export interface StrictCoverageRow {
  server: string;
  version: string;
  tools: number;
  /** Sent strict with the default (schemas unchanged). */
  strictByDefault: number;
  /** Projectable with the previous rules (no length/uniqueness keyword anywhere). */
  strictBefore: number;
  /** Sent strict with `strict: 'auto'`. */
  strictAuto: number;
  /** Of those, with keywords moved into descriptions. */
  projectedWithMovedKeywords: number;
}

/** What the strict-coverage suite found. */
export interface StrictCoverageResult {
  rows: StrictCoverageRow[];
  /** Moved keywords, by keyword, over the corpus. */
  moved: Record<string, number>;
  /** Why the rest stay non-strict, by reason (pointer left out), over the corpus. */
  refusals: Record<string, number>;
  /** Median microseconds to collect one server's tools with `strict: 'auto'` (projection included, cold). */
  collectMicroseconds: number;
}

function tally(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/**
 * Strict-mode coverage of real MCP tool schemas (`fixtures/mcp-tool-schemas.json`): how many are
 * sent strict by default (none: sent unchanged), how many the projection took before constraints
 * could move into descriptions, and how many `strict: 'auto'` sends strict now.
 */
export function strictCoverage(): StrictCoverageResult {
  heading('Strict coverage of real MCP tool schemas');
  const corpus = JSON.parse(
    readFileSync(new URL('../../fixtures/mcp-tool-schemas.json', import.meta.url), 'utf8'),
  ) as { servers: CorpusServer[] };
  const rows: StrictCoverageRow[] = [];
  const moved: Record<string, number> = {};
  const refusals: Record<string, number> = {};
  const timings: number[] = [];
  for (const server of corpus.servers) {
    const define = (strict: 'auto' | undefined) =>
      server.tools.map((tool, index) =>
        defineWorkerTool({
          // The corpus's names are the servers' own; dispatch keys need only be unique here.
          name: `t${index}`,
          namespace: 'corpus',
          description: tool.name,
          // A copy per definition: core caches projections per schema object.
          jsonSchema: structuredClone(tool.inputSchema),
          ...(strict === undefined ? {} : { strict }),
          describeActivity: () => tool.name,
          execute: () => ({ content: '' }),
        }),
      );
    const unchanged = collectToolSchemas(define(undefined));
    const autoTools = define('auto');
    const started = performance.now();
    const auto = collectToolSchemas(autoTools);
    timings.push((performance.now() - started) * 1000);
    let strictBefore = 0;
    for (const tool of server.tools) {
      const projection = toStrictJSONSchema(tool.inputSchema);
      if (projection.ok) {
        if (!projection.movedKeywords.some((keyword) => FORMERLY_REFUSED.test(keyword))) strictBefore += 1;
        for (const keyword of projection.movedKeywords) tally(moved, keyword.split(' ')[0] ?? keyword);
      } else {
        tally(refusals, projection.reason.replace(/ at \/\S*/, ''));
      }
    }
    rows.push({
      server: server.server,
      version: server.version,
      tools: server.tools.length,
      strictByDefault: unchanged.entries.filter((entry) => entry.strict).length,
      strictBefore,
      strictAuto: auto.entries.filter((entry) => entry.strict).length,
      projectedWithMovedKeywords: auto.entries.filter((entry) => entry.movedKeywords !== undefined).length,
    });
  }
  timings.sort((a, b) => a - b);
  const result: StrictCoverageResult = {
    rows,
    moved,
    refusals,
    collectMicroseconds: timings[Math.floor(timings.length / 2)] ?? 0,
  };
  const sum = (key: keyof Omit<StrictCoverageRow, 'server' | 'version'>) =>
    rows.reduce((total, row) => total + row[key], 0);
  report(
    'strict coverage',
    `${sum('tools')} tools: ${sum('strictByDefault')} strict by default, ${sum('strictBefore')} before, ${sum('strictAuto')} with strict: 'auto' (${sum('projectedWithMovedKeywords')} with moved keywords)`,
  );
  return result;
}
