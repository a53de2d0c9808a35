import { isDeepStrictEqual } from 'node:util';
import { defineWorkerTool, type ZodWorkerAgentTool } from '@switchyard/core';
import { validateToolArguments } from '@switchyard/core/internal';
import { jsonrepair } from 'jsonrepair';
import type { z } from 'zod';
import { type LadderToolName, ladderSchemas } from './ladder-tools';

/** One corpus case (bench/fixtures/malformed-arguments.json). */
export interface LadderCase {
  /** Unique, descriptive id. */
  id: string;
  /** The failure mode it exercises. */
  category: string;
  /** The tool called: a key of `ladderSchemas`. */
  tool: string;
  /** The model's argument string, exactly. */
  raw: string;
  /** The response's finish reason, when not a normal stop (`length`, `max_output_tokens`). */
  finishReason?: string;
  /** The exact parameters a correct policy returns, or `reject`. */
  expected: Record<string, unknown> | 'reject';
  /** Why the expectation is what it is, when not obvious. */
  note?: string;
}

/** What a policy did with one case. */
export type PolicyOutcome = { ok: true; value: unknown } | { ok: false };

/** An argument policy: a raw string (and finish reason) to parameters or a rejection. */
export interface ArgumentPolicy {
  /** Name shown in reports. */
  name: string;
  /** Runs the policy on one case. */
  run(schema: z.ZodObject, toolName: string, raw: string, finishReason?: string): PolicyOutcome;
}

/** How one outcome scores against its case. */
export type Verdict = 'correct-value' | 'correct-rejection' | 'silent-wrong-value' | 'missed-repair';

/** A policy's score over the corpus. */
export interface LadderScore {
  /** Policy name. */
  policy: string;
  /** Cases per verdict. */
  counts: Record<Verdict, number>;
  /** Every case whose verdict is a silent wrong value, with what the policy returned. */
  silentWrong: Array<{ id: string; raw: string; expected: unknown; got: unknown; note?: string }>;
  /** Ids of the cases rejected although a value was expected (safe, but a repair was possible). */
  missed: string[];
  /** Verdict of every case, by id. */
  verdicts: Record<string, Verdict>;
}

/** Scores one outcome: a value equal to the expected one, a rejection where one was expected, or neither. */
export function verdictOf(expected: LadderCase['expected'], outcome: PolicyOutcome): Verdict {
  if (expected === 'reject') return outcome.ok ? 'silent-wrong-value' : 'correct-rejection';
  if (!outcome.ok) return 'missed-repair';
  return isDeepStrictEqual(outcome.value, expected) ? 'correct-value' : 'silent-wrong-value';
}

/** Runs a policy over the corpus and counts the verdicts. */
export function scoreLadder(cases: readonly LadderCase[], policy: ArgumentPolicy): LadderScore {
  const score: LadderScore = {
    policy: policy.name,
    counts: { 'correct-value': 0, 'correct-rejection': 0, 'silent-wrong-value': 0, 'missed-repair': 0 },
    silentWrong: [],
    missed: [],
    verdicts: {},
  };
  for (const entry of cases) {
    const schema = (ladderSchemas as Record<string, z.ZodObject>)[entry.tool];
    if (schema === undefined) throw new Error(`case ${entry.id}: unknown tool ${entry.tool}`);
    let outcome: PolicyOutcome;
    try {
      outcome = policy.run(schema, entry.tool, entry.raw, entry.finishReason);
    } catch {
      outcome = { ok: false };
    }
    const verdict = verdictOf(entry.expected, outcome);
    score.counts[verdict] += 1;
    score.verdicts[entry.id] = verdict;
    if (verdict === 'silent-wrong-value')
      score.silentWrong.push({
        id: entry.id,
        raw: entry.raw,
        expected: entry.expected,
        got: outcome.ok ? outcome.value : undefined,
        ...(entry.note === undefined ? {} : { note: entry.note }),
      });
    if (verdict === 'missed-repair') score.missed.push(entry.id);
  }
  return score;
}

/** Checks the corpus's shape; throws naming the first bad case. */
export function checkCorpus(value: unknown): LadderCase[] {
  const cases = (value as { cases?: unknown }).cases;
  if (!Array.isArray(cases)) throw new Error('corpus: `cases` must be an array');
  const ids = new Set<string>();
  for (const entry of cases as LadderCase[]) {
    if (typeof entry.id !== 'string' || ids.has(entry.id))
      throw new Error(`corpus: bad or repeated id ${entry.id}`);
    ids.add(entry.id);
    if (typeof entry.raw !== 'string') throw new Error(`corpus ${entry.id}: raw must be a string`);
    if (!(entry.tool in ladderSchemas)) throw new Error(`corpus ${entry.id}: unknown tool ${entry.tool}`);
    if (entry.expected !== 'reject' && (typeof entry.expected !== 'object' || entry.expected === null))
      throw new Error(`corpus ${entry.id}: expected must be an object or "reject"`);
    if (entry.expected !== 'reject') {
      const parsed = ladderSchemas[entry.tool as LadderToolName].safeParse(entry.expected);
      if (!parsed.success || !isDeepStrictEqual(parsed.data, entry.expected))
        throw new Error(`corpus ${entry.id}: expected value does not fit the ${entry.tool} schema`);
    }
  }
  return cases as LadderCase[];
}

const workerTools = new Map<string, ZodWorkerAgentTool<Record<string, unknown>>>();

/** Switchyard: `validateToolArguments` (the repair ladder, then the tool's schema). */
export const switchyardPolicy: ArgumentPolicy = {
  name: 'switchyard validateToolArguments',
  run(schema, toolName, raw, finishReason) {
    let tool = workerTools.get(toolName);
    if (tool === undefined) {
      tool = defineWorkerTool({
        name: toolName,
        description: `Corpus tool ${toolName}.`,
        schema,
        describeActivity: () => toolName,
        execute: () => ({ content: 'ok' }),
      });
      workerTools.set(toolName, tool);
    }
    const result = validateToolArguments(tool, raw, finishReason === undefined ? {} : { finishReason });
    return result.ok ? { ok: true, value: result.params } : { ok: false };
  },
};

/** `jsonrepair` as the whole policy: repair, `JSON.parse`, then the same schema. */
export const jsonrepairPolicy: ArgumentPolicy = {
  name: 'jsonrepair + JSON.parse + schema',
  run(schema, _toolName, raw) {
    const parsed = schema.safeParse(JSON.parse(jsonrepair(raw)));
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
  },
};
