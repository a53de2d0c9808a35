import { readFileSync } from 'node:fs';
import {
  checkCorpus,
  jsonrepairPolicy,
  type LadderScore,
  scoreLadder,
  switchyardPolicy,
} from '../ladder/score-ladder';
import { heading, report } from '../measure';

/** Where the corpus lives. */
export const CORPUS_URL = new URL('../../fixtures/malformed-arguments.json', import.meta.url);

/** What the ladder benchmark found. */
export interface ArgumentLadderResult {
  /** Cases in the corpus, and how many expect a rejection. */
  cases: number;
  rejections: number;
  /** Per-category case counts. */
  categories: Record<string, number>;
  scores: LadderScore[];
}

/** Scores Switchyard's `validateToolArguments` and jsonrepair-as-the-policy on the corpus. */
export function argumentLadder(): ArgumentLadderResult {
  const cases = checkCorpus(JSON.parse(readFileSync(CORPUS_URL, 'utf8')));
  const categories: Record<string, number> = {};
  for (const entry of cases) categories[entry.category] = (categories[entry.category] ?? 0) + 1;
  const scores = [switchyardPolicy, jsonrepairPolicy].map((policy) => scoreLadder(cases, policy));
  const rejections = cases.filter((entry) => entry.expected === 'reject').length;
  heading(`Argument ladder: ${cases.length} malformed-argument cases (${rejections} should be rejected)`);
  for (const score of scores) {
    report(
      score.policy,
      `${score.counts['silent-wrong-value']} wrong`,
      `${score.counts['correct-value']} correct values, ${score.counts['correct-rejection']} correct rejections, ${score.counts['missed-repair']} safe rejections of repairable input`,
    );
    for (const wrong of score.silentWrong)
      process.stdout.write(`    silent wrong value: ${wrong.id} -> ${JSON.stringify(wrong.got)}\n`);
  }
  return { cases: cases.length, rejections, categories, scores };
}
