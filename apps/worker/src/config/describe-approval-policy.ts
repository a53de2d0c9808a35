import type { ApprovalDecision, ApprovalPolicy, ApprovalTurnSource } from './worker-config';

const SOURCES: readonly ApprovalTurnSource[] = ['api', 'schedule', 'task', 'job'];

const WORDS: Readonly<Record<ApprovalDecision, string>> = {
  allow: 'run',
  ask: 'wait for an approval',
  deny: 'are refused',
};

/** `a`, `a and b`, `a, b and c`. */
function listOf(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * One line stating agent `agent`'s approval policy as `serve` applies it, and the field (or the
 * default) behind each decision: what an operator reads at start-up to know which calls will run
 * with nobody watching.
 *
 * @example
 * describeApprovalPolicy('main', policy);
 * // "agent main: destructive calls run in api turns (default) and wait for an approval in schedule, task
 * //  and job turns (default); read-only calls run (default); no tool listed; held calls expire after 3600 s"
 */
export function describeApprovalPolicy(agent: string, policy: ApprovalPolicy): string {
  // Sources with the same decision from the same field are said together, in SOURCES' order.
  const groups: Array<{ decision: ApprovalDecision; origin: string; sources: ApprovalTurnSource[] }> = [];
  for (const source of SOURCES) {
    const decision = policy.destructive[source];
    const origin = policy.origins.destructive[source];
    const group = groups.find((entry) => entry.decision === decision && entry.origin === origin);
    if (group === undefined) groups.push({ decision, origin, sources: [source] });
    else group.sources.push(source);
  }
  const destructive = groups.map(({ decision, origin, sources }) =>
    sources.length === SOURCES.length
      ? `${WORDS[decision]} in every turn (${origin})`
      : `${WORDS[decision]} in ${listOf(sources)} turns (${origin})`,
  );
  const listed = Object.entries(policy.tools).map(([key, decision]) => `${key} ${decision}`);
  return [
    `agent ${agent}: destructive calls ${listOf(destructive)}`,
    `read-only calls ${WORDS[policy.readOnly]} (${policy.origins.readOnly})`,
    listed.length === 0 ? 'no tool listed' : `by tool: ${listed.join(', ')}`,
    `held calls expire after ${policy.expiresInSeconds} s`,
  ].join('; ');
}
