import { type ApprovalRecord, ControlPlaneInputError } from '@switchyard/control-plane';
import type { WorkerConfig } from '../config/worker-config';
import { daemonError, findRunningDaemon, type RunningDaemon, requestDaemon } from '../running-daemon';
import { readControlPlane } from '../worker-services';

/** What answering an approval did: as `controlPlane.approvals.answer` says it. */
export type ApprovalAnswerOutcome =
  | { status: 'answered'; approval: ApprovalRecord }
  | { status: 'already-decided'; approval: ApprovalRecord };

/** Where the `approvals` commands read and answer approvals: the database, or a running daemon's API. */
export interface ApprovalsSource {
  /** Approvals newest first: pending ones, or every state with `all`; at most `limit`. */
  list(options: { agentIds?: string[]; all: boolean; limit: number }): Promise<ApprovalRecord[]>;
  /** One approval with its arguments whole, or undefined. */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Answers a pending approval; undefined when there is no such approval. */
  answer(request: {
    id: string;
    decision: 'allow' | 'deny';
    reason?: string;
    answeredBy: string;
  }): Promise<ApprovalAnswerOutcome | undefined>;
}

const STATUSES = ['pending', 'allowed', 'denied', 'expired', 'cancelled'] as const;

/** The API's approval (`agent`) as the records' (`agentId`). */
function recordOf(view: Record<string, unknown>): ApprovalRecord {
  const { agent, ...rest } = view;
  return { ...rest, agentId: agent } as unknown as ApprovalRecord;
}

/** A running daemon's approvals, through its HTTP API (`/v1/approvals`). */
function daemonApprovals(daemon: RunningDaemon): ApprovalsSource {
  const failed = (what: string, answer: { status: number; body: Record<string, unknown> }) =>
    new Error(`${what} through the daemon's API (${daemon.url}): ${daemonError(answer)}`);
  const get = async (id: string) => {
    const answer = await requestDaemon(daemon, 'GET', `/v1/approvals/${encodeURIComponent(id)}`);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw failed('reading the approval', answer);
    const record = recordOf(answer.body);
    if (record.arguments === undefined && record.argumentsPreview !== undefined) {
      // Large arguments come whole on their own route only.
      const whole = await requestDaemon(daemon, 'GET', `/v1/approvals/${encodeURIComponent(id)}/arguments`);
      if (whole.status !== 200) throw failed('reading the arguments', whole);
      record.arguments = whole.body.arguments;
    }
    return record;
  };
  return {
    async list({ agentIds, all, limit }) {
      // The API lists one state at a time: --all reads each, newest first.
      const records: ApprovalRecord[] = [];
      for (const status of all ? STATUSES : (['pending'] as const)) {
        for (const agent of agentIds ?? [undefined]) {
          const query = new URLSearchParams({ status, limit: String(limit) });
          if (agent !== undefined) query.set('agent', agent);
          const answer = await requestDaemon(daemon, 'GET', `/v1/approvals?${query}`);
          if (answer.status !== 200) throw failed('listing approvals', answer);
          records.push(...(answer.body.approvals as Array<Record<string, unknown>>).map(recordOf));
        }
      }
      return records.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
    },
    get,
    async answer({ id, decision, reason }) {
      const answer = await requestDaemon(daemon, 'POST', `/v1/approvals/${encodeURIComponent(id)}`, {
        decision,
        ...(reason === undefined ? {} : { reason }),
      });
      if (answer.status === 404) return undefined;
      if (answer.status === 409) {
        const approval = await get(id);
        if (approval === undefined) return undefined;
        return { status: 'already-decided', approval };
      }
      if (answer.status !== 200) throw failed('answering the approval', answer);
      return { status: 'answered', approval: recordOf(answer.body) };
    },
  };
}

/**
 * Runs `work` on the approvals of the configuration's control plane: through the HTTP API of the
 * `switchyard serve` that holds the embedded database when one runs (`findRunningDaemon`, with the
 * configured token), else on the database itself (`empty()` when it does not exist yet).
 *
 * Contract: rejects as `readControlPlane` does, a database held by a process that is not a daemon
 * with a reachable API naming it and what to do.
 */
export async function withApprovals<T>(
  config: WorkerConfig,
  work: (approvals: ApprovalsSource) => Promise<T>,
  empty: () => T,
): Promise<T> {
  const daemon = await findRunningDaemon(config);
  if (daemon !== undefined) return work(daemonApprovals(daemon));
  try {
    return await readControlPlane(
      config,
      (controlPlane) =>
        work({
          list: async ({ agentIds, all, limit }) => {
            await controlPlane.approvals.expireDue();
            return controlPlane.approvals.list({
              ...(agentIds === undefined ? {} : { agentIds }),
              ...(all ? {} : { status: 'pending' as const }),
              limit,
            });
          },
          get: (id) => controlPlane.approvals.get(id),
          answer: (request) => controlPlane.approvals.answer(request),
        }),
      empty,
    );
  } catch (error) {
    if (ControlPlaneInputError.isInstance(error) && error.field === 'dataDir') {
      throw new Error(
        `${error.message}\nWhile switchyard serve runs on embedded PGlite, answer through its HTTP API (GET /v1/approvals, POST /v1/approvals/<id> with {"decision":"allow"|"deny","reason":"..."}), or run the fleet on PostgreSQL (database.url), where these commands work beside running daemons.`,
      );
    }
    throw error;
  }
}
