import type { StrictCoverageResult } from '../suites/strict-coverage';
import { marked } from './report-format';

/** The strict-coverage section. */
export function renderStrictCoverageSection(coverage: StrictCoverageResult): string {
  const total = (
    key: 'tools' | 'strictByDefault' | 'strictBefore' | 'strictAuto' | 'projectedWithMovedKeywords',
  ) => coverage.rows.reduce((sum, row) => sum + row[key], 0);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([key, count]) => `${key} (${count})`)
      .join('; ') || 'none';
  return marked('strict-coverage', [
    `## Strict coverage of real MCP tool schemas (${total('tools')} tools, ${coverage.rows.length} servers)`,
    '',
    "Corpus: `bench/fixtures/mcp-tool-schemas.json`, each server's `tools/list` read over stdio from the package installed from the npm registry (version below). *Default*: an MCP schema is sent unchanged, so non-strict (its manifest entry says `external schema sent unchanged`). *Before*: schemas `toStrictJSONSchema` could project before constraints moved into descriptions (a `minLength`, `maxLength`, `uniqueItems`, `minProperties` or `maxProperties` anywhere refused the schema; the same count as main's core gives on this corpus). *strict: 'auto'*: sent strict now, with the server's schema still validating every call.",
    '',
    "| server | version | tools | strict by default | projectable before | strict with `strict: 'auto'` | of which with moved keywords |",
    '|---|---|---|---|---|---|---|',
    ...coverage.rows.map(
      (row) =>
        `| ${row.server} | ${row.version} | ${row.tools} | ${row.strictByDefault} | ${row.strictBefore} | ${row.strictAuto} | ${row.projectedWithMovedKeywords} |`,
    ),
    `| **all** | | **${total('tools')}** | **${total('strictByDefault')}** | **${total('strictBefore')}** | **${total('strictAuto')}** | **${total('projectedWithMovedKeywords')}** |`,
    '',
    `- Moved into descriptions (keyword occurrences): ${list(coverage.moved)}.`,
    `- Still refused, with the reason stated in the manifest: ${list(coverage.refusals)}.`,
    `- Collecting one server's tools with \`strict: 'auto'\` (projection included, first collection): median ${coverage.collectMicroseconds.toFixed(0)} µs.`,
    '',
  ]);
}
