import { describe, expect, it } from 'vitest';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkResultSchema } from './check-result-schema';
import { checkWorkflowSpec } from './check-workflow-spec';

const schema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

function refusal(spec: unknown): ControlPlaneInputError {
  try {
    checkWorkflowSpec(spec, 1000);
  } catch (error) {
    expect(ControlPlaneInputError.isInstance(error)).toBe(true);
    return error as ControlPlaneInputError;
  }
  throw new Error('expected a refusal');
}

describe('checkResultSchema', () => {
  it('accepts the closed shapes and returns them in canonical key order', () => {
    const result = checkResultSchema({
      additionalProperties: false,
      required: ['title', 'score', 'tags', 'author', 'kind'],
      type: 'object',
      properties: {
        title: { type: 'string', description: 'The title' },
        score: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' } },
        author: {
          anyOf: [
            {
              type: 'object',
              properties: { name: { type: 'string' } },
              required: ['name'],
              additionalProperties: false,
            },
            { type: 'null' },
          ],
        },
        kind: { type: 'string', enum: ['a', 'b'] },
      },
    });
    expect(result.ok).toBe(true);
    if (result.ok)
      expect(Object.keys(result.schema)).toEqual(['type', 'properties', 'required', 'additionalProperties']);
  });

  it.each([
    [{ type: 'array', items: { type: 'string' } }, '/', /root must be an object/],
    [{ ...schema, additionalProperties: true }, '/', /additionalProperties': false/],
    [{ ...schema, required: [] }, '/', /missing from 'required': summary/],
    [
      { ...schema, properties: { summary: { type: 'string', minLength: 3 } } },
      '/properties/summary',
      /keyword 'minLength' is not supported/,
    ],
    [{ ...schema, properties: { summary: { type: ['string', 'null'] } } }, '/properties/summary', /one type/],
    [
      { ...schema, properties: { summary: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
      '/properties/summary',
      /anyOf' is only supported/,
    ],
    [
      { ...schema, properties: { summary: { type: 'object', properties: {}, required: [] } } },
      '/properties/summary',
      /additionalProperties/,
    ],
    [{ ...schema, properties: { summary: { type: 'string', enum: [1] } } }, '/properties/summary', /enum/],
  ])('refuses %j at %s', (input, path, message) => {
    const result = checkResultSchema(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.path).toBe(path);
      expect(result.message).toMatch(message);
    }
  });

  it('refuses nesting deeper than the limit', () => {
    let node: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 6; level += 1) {
      node = {
        type: 'object',
        properties: { inner: node },
        required: ['inner'],
        additionalProperties: false,
      };
    }
    const result = checkResultSchema(node);
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/deeper than 5/) });
  });
});

describe('checkWorkflowSpec', () => {
  const task = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    prompt: `do ${id}`,
    resultSchema: schema,
    ...extra,
  });

  it('accepts a valid spec with references to dependencies', () => {
    const checked = checkWorkflowSpec(
      {
        name: 'research',
        tasks: [
          task('a'),
          task('b'),
          task('c', { dependsOn: ['a', 'b'], prompt: 'merge {{tasks.a.result}} and {{ tasks.b.result }}' }),
        ],
      },
      1000,
    );
    expect(checked.tasks.map((item) => [item.id, item.dependsOn])).toEqual([
      ['a', []],
      ['b', []],
      ['c', ['a', 'b']],
    ]);
  });

  it('names the task and the schema path of a refused result schema', () => {
    const error = refusal({
      name: 'w',
      tasks: [
        task('a'),
        task('b', {
          resultSchema: { ...schema, properties: { summary: { type: 'string', format: 'email' } } },
        }),
      ],
    });
    expect(error.field).toBe('tasks[1].resultSchema');
    expect(error.message).toMatch(/task "b": resultSchema at \/properties\/summary: keyword 'format'/);
  });

  it('refuses repeated ids, unknown dependencies, cycles and unknown references', () => {
    expect(refusal({ name: 'w', tasks: [task('a'), task('a')] }).message).toMatch(
      /task "a" repeats the id of tasks\[0\]/,
    );
    expect(refusal({ name: 'w', tasks: [task('a', { dependsOn: ['zz'] })] }).message).toMatch(
      /task "a" depends on unknown task "zz"/,
    );
    expect(
      refusal({
        name: 'w',
        tasks: [
          task('a', { dependsOn: ['c'] }),
          task('b', { dependsOn: ['a'] }),
          task('c', { dependsOn: ['b'] }),
        ],
      }).message,
    ).toMatch(/dependency cycle: a -> c -> b -> a/);
    expect(refusal({ name: 'w', tasks: [task('a', { prompt: 'use {{tasks.x.result}}' })] }).message).toMatch(
      /references \{\{tasks.x.result\}\}, but there is no task "x"/,
    );
    expect(
      refusal({ name: 'w', tasks: [task('a'), task('b', { prompt: 'use {{tasks.a.result}}' })] }).message,
    ).toMatch(/does not depend on "a": add it to dependsOn/);
    expect(refusal({ name: 'w', tasks: [] }).field).toBe('tasks');
    expect(refusal({ name: 'w', tasks: [task('bad id')] }).field).toBe('tasks[0].id');
  });
});
