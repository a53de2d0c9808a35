import type { LadderScore } from '../ladder/score-ladder';
import type { ArgumentLadderResult } from '../suites/argument-ladder';
import { marked } from './report-format';

function ladderRow(score: LadderScore): string {
  const c = score.counts;
  return `| ${score.policy} | ${c['correct-value']} | ${c['correct-rejection']} | **${c['silent-wrong-value']}** | ${c['missed-repair']} |`;
}

/** The argument-ladder section. */
export function renderLadderSection(ladder: ArgumentLadderResult): string {
  const lines = [
    `## Argument ladder (${ladder.cases} cases, ${ladder.rejections} should be rejected)`,
    '',
    'Corpus: `bench/fixtures/malformed-arguments.json` (raw argument string, tool schema by name, finish reason, expected value or "reject"). A silent wrong value is a value returned that is not the expected one, or any value where rejection was expected: the tool would run on something the model did not mean. A safe rejection of repairable input is a rejection where a value was expected (the model gets an error and retries). jsonrepair is used as the whole policy: `jsonrepair`, `JSON.parse`, then the same Zod schema (it does not see the finish reason).',
    '',
    `Categories: ${Object.entries(ladder.categories)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}.`,
    '',
    '| policy | correct values | correct rejections | silent wrong values | safe rejections of repairable input |',
    '|---|---|---|---|---|',
    ...ladder.scores.map(ladderRow),
    '',
    "Expectations are judgments about what the model meant; a case whose expectation could be argued carries a `note` in the corpus. Switchyard's target is zero silent wrong values: any listed below for it is a finding about core's ladder or validation, reported here and not patched by the benchmark.",
    '',
  ];
  for (const score of ladder.scores) {
    lines.push(`Silent wrong values, ${score.policy}:`, '');
    if (score.silentWrong.length === 0) lines.push('- none', '');
    else
      lines.push(
        ...score.silentWrong.map(
          (wrong) =>
            `- \`${wrong.id}\`: \`${JSON.stringify(wrong.raw)}\` gave \`${JSON.stringify(wrong.got)}\`, expected ${wrong.expected === 'reject' ? 'a rejection' : `\`${JSON.stringify(wrong.expected)}\``}${wrong.note === undefined ? '' : ` (${wrong.note})`}`,
        ),
        '',
      );
    lines.push(
      `Rejected although repairable, ${score.policy}: ${score.missed.map((id) => `\`${id}\``).join(', ') || 'none'}.`,
      '',
    );
  }
  return marked('argument-ladder', lines);
}
