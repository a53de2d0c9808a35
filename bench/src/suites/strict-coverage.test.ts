import { readFileSync } from 'node:fs';
import { defineWorkerTool, type JSONSchemaObject } from '@switchyard/core';
import { toStrictJSONSchema, validateToolArguments } from '@switchyard/core/internal';
import { describe, expect, it } from 'vitest';

const corpus = JSON.parse(
  readFileSync(new URL('../../fixtures/mcp-tool-schemas.json', import.meta.url), 'utf8'),
) as { servers: Array<{ server: string; tools: Array<{ name: string; inputSchema: JSONSchemaObject }> }> };
const tools = corpus.servers.flatMap((server) =>
  server.tools.map((tool) => ({ key: `${server.server} ${tool.name}`, schema: tool.inputSchema })),
);

/** Every object of a strict schema closes itself and requires all its properties. */
function strictShapeProblems(node: unknown, path: string, problems: string[]): void {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) strictShapeProblems(item, `${path}/${index}`, problems);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (typeof schema.properties === 'object' && schema.properties !== null) {
    const names = Object.keys(schema.properties);
    if (schema.additionalProperties !== false) problems.push(`${path}: not closed`);
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (names.some((name) => !required.includes(name))) problems.push(`${path}: not all required`);
  }
  // A `properties` map names properties (one may be called minLength); every other node is a schema.
  if (!path.endsWith('/properties')) {
    for (const key of ['minLength', 'maxLength', 'uniqueItems', 'minProperties', 'maxProperties']) {
      if (key in schema) problems.push(`${path}: kept ${key}`);
    }
  }
  for (const [key, value] of Object.entries(schema)) strictShapeProblems(value, `${path}/${key}`, problems);
}

describe('the real MCP schema corpus', () => {
  it('holds the published servers with their tools', () => {
    expect(corpus.servers.length).toBeGreaterThanOrEqual(5);
    expect(tools.length).toBeGreaterThan(100);
  });

  it('projects each schema to one strict mode takes: closed objects, every property required, no moved keyword left', () => {
    const problems: string[] = [];
    for (const tool of tools) {
      const projection = toStrictJSONSchema(tool.schema);
      if (!projection.ok) continue;
      const found: string[] = [];
      strictShapeProblems(projection.schema, '', found);
      problems.push(...found.map((problem) => `${tool.key}${problem}`));
    }
    expect(problems).toEqual([]);
  });

  it("still enforces a moved minLength locally for a tool sent with strict: 'auto'", () => {
    const candidates = tools.filter((tool) => {
      const projection = toStrictJSONSchema(tool.schema);
      return (
        projection.ok &&
        projection.movedKeywords.some((keyword) => /^minLength at \/properties\/[^/]+$/.test(keyword))
      );
    });
    expect(candidates.length).toBeGreaterThan(0);
    for (const candidate of candidates) {
      const projection = toStrictJSONSchema(candidate.schema);
      if (!projection.ok) continue;
      const moved = projection.movedKeywords.find((keyword) =>
        /^minLength at \/properties\/[^/]+$/.test(keyword),
      );
      const property = moved?.slice('minLength at /properties/'.length) ?? '';
      const tool = defineWorkerTool({
        name: 'corpus_tool',
        description: candidate.key,
        jsonSchema: candidate.schema,
        strict: 'auto',
        describeActivity: () => candidate.key,
        execute: () => ({ content: '' }),
      });
      const result = validateToolArguments(tool, JSON.stringify({ [property]: '' }));
      expect(result.ok, candidate.key).toBe(false);
      expect(!result.ok && result.error.issues.map((issue) => issue.path), candidate.key).toContain(
        `/${property}`,
      );
    }
  });
});
