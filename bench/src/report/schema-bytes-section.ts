import type { SchemaBytesResult } from '../suites/schema-bytes';
import { marked } from './report-format';

const kib = (value: number) => (value >= 10_000 ? `${(value / 1024).toFixed(1)} KiB` : `${value} B`);

/** The schema-bytes section. */
export function renderSchemaSection(schemas: SchemaBytesResult): string {
  const lines = [
    `## Tool-schema bytes per request (${schemas.tools} tools in ${schemas.namespaces} namespaces)`,
    '',
    'Bytes of the JSON `tools` array in the first request body each runtime actually sent to the fake server (same tools, same strict JSON Schemas).',
    '',
    '| runtime | declaration | `tools` entries | bytes | vs Switchyard eager |',
    '|---|---|---|---|---|',
  ];
  const eager = schemas.rows.find(
    (row) => row.runtime === 'switchyard' && row.variant.startsWith('eager'),
  )?.bytes;
  for (const row of schemas.rows)
    lines.push(
      `| ${row.runtime} | ${row.variant} | ${row.entries} | ${kib(row.bytes)} | ${eager ? `${((100 * row.bytes) / eager).toFixed(1)}%` : '-'} |`,
    );
  lines.push('', ...schemas.notes.map((note) => `- ${note}`), '');
  return marked('schema-bytes', lines);
}
