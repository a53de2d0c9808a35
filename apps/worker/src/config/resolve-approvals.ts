import type { ConfigFile } from './config-schema';
import type { ApprovalDecision, ApprovalPolicy, ApprovalTurnSource } from './worker-config';

type ApprovalsFile = NonNullable<ConfigFile['approvals']>;

/**
 * What `serve` does with destructive calls when no policy says otherwise: an API turn has a client
 * that asked for it (and runs as it always did); a schedule fire, a workflow task or a background job
 * has nobody watching, so its destructive calls wait for an operator.
 */
const DESTRUCTIVE_DEFAULTS: Readonly<Record<ApprovalTurnSource, ApprovalDecision>> = {
  api: 'allow',
  schedule: 'ask',
  task: 'ask',
  job: 'ask',
};

/** One source's `destructive` decision in a policy section, and the field that gave it. */
function destructiveOf(
  section: ApprovalsFile | undefined,
  prefix: string,
  source: ApprovalTurnSource,
): { decision: ApprovalDecision; origin: string } | undefined {
  const destructive = section?.destructive;
  if (typeof destructive === 'string') return { decision: destructive, origin: `${prefix}.destructive` };
  const decision = destructive?.[source];
  return decision === undefined ? undefined : { decision, origin: `${prefix}.destructive.${source}` };
}

/**
 * An approval policy from the file's `approvals` and an agent's own (`agents.<name>.approvals`),
 * field by field over it; `destructive` source by source.
 */
export function resolveApprovals(
  base: ApprovalsFile | undefined,
  own?: { agent: string; approvals: ApprovalsFile | undefined },
): ApprovalPolicy {
  const ownPrefix = `agents.${own?.agent}.approvals`;
  const destructive = {} as Record<ApprovalTurnSource, ApprovalDecision>;
  const destructiveOrigins = {} as Record<ApprovalTurnSource, string>;
  for (const source of Object.keys(DESTRUCTIVE_DEFAULTS) as ApprovalTurnSource[]) {
    const chosen = destructiveOf(own?.approvals, ownPrefix, source) ??
      destructiveOf(base, 'approvals', source) ?? {
        decision: DESTRUCTIVE_DEFAULTS[source],
        origin: 'default',
      };
    destructive[source] = chosen.decision;
    destructiveOrigins[source] = chosen.origin;
  }
  const ownSection = own?.approvals;
  return {
    destructive,
    readOnly: ownSection?.readOnly ?? base?.readOnly ?? 'allow',
    tools: { ...(base?.tools ?? {}), ...(ownSection?.tools ?? {}) },
    expiresInSeconds: ownSection?.expiresInSeconds ?? base?.expiresInSeconds ?? 3_600,
    approvers: ownSection?.approvers ?? base?.approvers ?? ['operator'],
    inDoubt: ownSection?.inDoubt ?? base?.inDoubt ?? 'report',
    origins: {
      destructive: destructiveOrigins,
      readOnly:
        ownSection?.readOnly !== undefined
          ? `${ownPrefix}.readOnly`
          : base?.readOnly !== undefined
            ? 'approvals.readOnly'
            : 'default',
    },
  };
}
