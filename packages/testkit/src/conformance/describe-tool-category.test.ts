import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { defineWorkerTool } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boundaryParams } from './boundary-params';
import { describeToolCategory } from './describe-tool-category';
import { generatedExecuteProblems } from './execute-problems';
import { minimalParams } from './minimal-params';

const notes = new Map([['todo.md', 'buy milk']]);

// A well-behaved category passes the suite it declares here.
describeToolCategory(
  'notes',
  () => [
    defineWorkerTool({
      name: 'read_note',
      description: 'Read a note.',
      schema: z.object({ path: z.string(), maxLines: z.number().int().min(1).optional() }),
      executionMode: 'parallel',
      isReadOnly: true,
      describeActivity: ({ path }) => `Reading ${path}`,
      execute: ({ path }, context) => {
        context.signal.throwIfAborted();
        return { content: notes.get(path) ?? `no note ${path}`, isError: !notes.has(path) };
      },
    }),
    defineWorkerTool({
      name: 'tag_note',
      namespace: 'tags',
      description: 'Tag a note.',
      schema: z.object({ path: z.string(), tags: z.record(z.string(), z.string()) }),
      describeActivity: ({ path }) => `Tagging ${path}`,
      execute: async ({ path }, context) => {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 5);
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(context.signal.reason);
          });
        });
        return { content: `tagged ${path}`, details: { path } };
      },
    }),
    defineWorkerTool({
      name: 'set_code',
      description: 'Needs a sample: a pattern the generator cannot satisfy.',
      schema: z.object({ code: z.string().regex(/^[A-Z]{3}$/) }),
      strict: false,
      describeActivity: ({ code }) => `Setting ${code}`,
      execute: ({ code }) => ({ content: code }),
    }),
  ],
  {
    samples: { read_note: [{ path: 'todo.md' }], set_code: [{ code: 'ABC' }] },
    nonStrict: { 'tags.tag_note': 'tags is an open record', set_code: 'minLength-like pattern' },
  },
);

describe('describeToolCategory on a broken category', () => {
  it('fails each check with a message naming the tool and the fix', { timeout: 60_000 }, async () => {
    const vitestBin = join(dirname(fileURLToPath(import.meta.resolve('vitest/package.json'))), 'vitest.mjs');
    const config = fileURLToPath(new URL('./__fixtures__/vitest.config.ts', import.meta.url));
    const output = await promisify(execFile)(
      process.execPath,
      [vitestBin, 'run', '--config', config, '--reporter', 'verbose'],
      {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    ).then(
      () => '',
      (error: { stdout: string; stderr: string }) => `${error.stdout}\n${error.stderr}`,
    );
    expect(output).toMatch(/✓ .*creates at least one tool/);
    expect(output).toMatch(/✓ .*gives every tool a root-object schema/);
    // Each failing check's message, naming the tool and the fix.
    for (const message of [
      'tool name \\"bad name\\" does not match',
      "tool 'tags' is sent non-strict (a record",
      "nonStrict names 'ghost', which the category does not create",
      `tool 'tags': describeActivity({\\"tags\\":{}}) returned \\"\\", not a non-empty label`,
      "tool 'dup.code': no params to exercise it with",
      "samples: { 'dup.code': [{ ... }] }",
      "tool 'tags': execute did not settle within 50 ms of its signal aborting",
      "tool 'tags': execute did not finish within 100 ms",
      "tool 'bad name': its result changes when JSON round-tripped",
    ]) {
      expect(output).toContain(message);
    }
    // Found only by generated params: the sample and the minimal params pass.
    expect(output).not.toContain('tool \'shout\': describeActivity({\\"text\\":\\"hey\\"');
    expect(output).toMatch(/tool 'shout': describeActivity\(\{\\"text\\":\\"\\".*threw: .*\(seed 18\)/);
    expect(output).toMatch(
      /tool 'shout': execute\(\{.*\\"times\\":0\}\) threw on valid boundary params: times must not be zero/,
    );
    expect(output).toMatch(/Tests\s+7 failed \| 2 passed \(9\)/);
  });
});

describe('minimalParams', () => {
  it('builds required fields only, with enum, bounds, lengths and nested objects', () => {
    const schema = z.toJSONSchema(
      z.object({
        query: z.string().min(3),
        mode: z.enum(['fast', 'slow']),
        limit: z.number().int().min(5),
        filter: z.object({ tag: z.string(), ids: z.array(z.number()).min(1) }),
        optional: z.string().optional(),
      }),
    ) as Record<string, unknown>;
    expect(minimalParams(schema)).toEqual({
      query: 'sample',
      mode: 'fast',
      limit: 5,
      filter: { tag: 'sample', ids: [1] },
    });
  });
});

describe('boundary values', () => {
  const schema = z.toJSONSchema(
    z.object({
      count: z.number().int().min(1).max(1000),
      title: z.string().max(500),
      mode: z.enum(['fast', 'slow', 'exact']),
      note: z.string().optional(),
    }),
  ) as Record<string, unknown>;

  it('covers both ends of each range, the longest string, each enum member, optional fields absent and present', () => {
    const values = boundaryParams(schema) as Array<Record<string, unknown>>;
    expect(values[0]).toEqual({ count: 1, title: 'sample', mode: 'fast' });
    expect(values[1]).toEqual({ count: 1, title: 'sample', mode: 'fast', note: 'sample' });
    expect(values.map((value) => value.count)).toContain(1000);
    expect(values.map((value) => (value.title as string).length)).toEqual(expect.arrayContaining([0, 500]));
    expect(values.map((value) => value.mode)).toEqual(expect.arrayContaining(['fast', 'slow', 'exact']));
    expect(values.filter((value) => !('note' in value))).toHaveLength(1);
    expect(values.some((value) => (value.note as string | undefined)?.length === 2000)).toBe(true);
    expect(new Set(values.map((value) => JSON.stringify(value))).size).toBe(values.length);
  });

  const upperBoundBreaks = defineWorkerTool({
    name: 'upper_bound_breaks',
    description: 'Works on everything but the largest count and the longest title.',
    schema: z.object({ count: z.number().int().min(1).max(1000), title: z.string().max(500) }),
    describeActivity: ({ title }) => `Writing ${title}`,
    execute: ({ count, title }) => {
      if (count === 1000) throw new RangeError('count 1000 overflows the page');
      if (title.length === 500) throw new RangeError('a 500-character title overflows the column');
      return { content: `${count} ${title}` };
    },
  });

  /** The generated-execute check on `upperBoundBreaks` with the default settings but `executeRuns`. */
  const upperBoundProblems = (executeRuns: number) =>
    generatedExecuteProblems([upperBoundBreaks], {
      propertyRuns: 100,
      executeRuns,
      seed: 18,
      executeTimeoutMs: 5000,
    });

  it('catches, with default settings, an execute that fails only at an upper bound', async () => {
    const problems = await upperBoundProblems(5);
    expect(
      problems.some((problem) =>
        problem.endsWith('threw on valid boundary params: count 1000 overflows the page'),
      ),
    ).toBe(true);
    expect(
      problems.some((problem) =>
        problem.endsWith('threw on valid boundary params: a 500-character title overflows the column'),
      ),
    ).toBe(true);
  });

  it('runs the boundary values even with executeRuns 0', async () => {
    const problems = await upperBoundProblems(0);
    expect(problems.length).toBeGreaterThan(0);
  });
});
