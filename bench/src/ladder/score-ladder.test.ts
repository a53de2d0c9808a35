import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type ArgumentPolicy,
  checkCorpus,
  jsonrepairPolicy,
  type LadderCase,
  scoreLadder,
  switchyardPolicy,
  verdictOf,
} from './score-ladder';

const corpus = () =>
  JSON.parse(readFileSync(new URL('../../fixtures/malformed-arguments.json', import.meta.url), 'utf8')) as {
    cases: LadderCase[];
  };

describe('verdictOf', () => {
  it('tells the four outcomes apart', () => {
    expect(verdictOf({ path: 'a' }, { ok: true, value: { path: 'a' } })).toBe('correct-value');
    expect(verdictOf({ path: 'a' }, { ok: true, value: { path: 'b' } })).toBe('silent-wrong-value');
    expect(verdictOf({ path: 'a' }, { ok: false })).toBe('missed-repair');
    expect(verdictOf('reject', { ok: false })).toBe('correct-rejection');
    expect(verdictOf('reject', { ok: true, value: {} })).toBe('silent-wrong-value');
  });

  it('compares values deeply and exactly', () => {
    expect(verdictOf({ a: [1, { b: 2 }] }, { ok: true, value: { a: [1, { b: 2 }] } })).toBe('correct-value');
    expect(verdictOf({ a: 1 }, { ok: true, value: { a: 1, b: undefined } })).toBe('silent-wrong-value');
  });
});

describe('scoreLadder', () => {
  const cases: LadderCase[] = [
    { id: 'clean', category: 'clean', tool: 'read_file', raw: '{"path":"a.md"}', expected: { path: 'a.md' } },
    { id: 'dup', category: 'dup', tool: 'read_file', raw: '{"path":"a","path":"b"}', expected: 'reject' },
    {
      id: 'fence',
      category: 'fence',
      tool: 'read_file',
      raw: '```\n{"path":"a"}\n```',
      expected: { path: 'a' },
    },
    {
      id: 'trunc',
      category: 't',
      tool: 'read_file',
      raw: '{"path":"a"',
      finishReason: 'length',
      expected: 'reject',
    },
  ];

  it('counts each verdict and lists silent wrong values with what came back', () => {
    const parseOnly: ArgumentPolicy = {
      name: 'JSON.parse',
      run: (schema, _tool, raw) => {
        const parsed = schema.safeParse(JSON.parse(raw));
        return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
      },
    };
    const score = scoreLadder(cases, parseOnly);
    expect(score.counts).toEqual({
      'correct-value': 1,
      'correct-rejection': 1,
      'silent-wrong-value': 1,
      'missed-repair': 1,
    });
    expect(score.silentWrong).toEqual([
      { id: 'dup', raw: cases[1]?.raw, expected: 'reject', got: { path: 'b' } },
    ]);
    expect(score.missed).toEqual(['fence']);
  });

  it('passes the finish reason to Switchyard and not to jsonrepair', () => {
    expect(scoreLadder(cases, switchyardPolicy).verdicts.trunc).toBe('correct-rejection');
    expect(scoreLadder(cases, jsonrepairPolicy).verdicts.trunc).toBe('silent-wrong-value');
  });

  it('throws on a case naming an unknown tool', () => {
    expect(() =>
      scoreLadder(
        [{ id: 'x', category: 'x', tool: 'nope', raw: '{}', expected: 'reject' }],
        switchyardPolicy,
      ),
    ).toThrow(/unknown tool nope/);
  });
});

describe('the corpus', () => {
  it('is well formed: unique ids, known tools, expected values that fit their schema', () => {
    const cases = checkCorpus(corpus());
    expect(cases.length).toBeGreaterThanOrEqual(90);
    expect(cases.some((entry) => entry.expected === 'reject')).toBe(true);
    expect(cases.some((entry) => entry.finishReason !== undefined)).toBe(true);
  });

  it('refuses an expected value the schema would not produce', () => {
    const bad = { cases: [{ id: 'x', category: 'x', tool: 'read_file', raw: '{}', expected: { path: 5 } }] };
    expect(() => checkCorpus(bad)).toThrow(/does not fit the read_file schema/);
    const repeated = { cases: [...corpus().cases.slice(0, 1), ...corpus().cases.slice(0, 1)] };
    expect(() => checkCorpus(repeated)).toThrow(/repeated id/);
  });
});
