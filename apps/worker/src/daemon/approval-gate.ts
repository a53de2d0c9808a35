import { isDeepStrictEqual } from 'node:util';
import type { ApprovalRecord } from '@switchyard/control-plane';
import type { AnyWorkerAgentTool, ToolCallDecision, ToolCallRequest } from '@switchyard/core';
import { toolKey } from '@switchyard/core/internal';
import type { ApprovalPolicy } from '../config/worker-config';
import { ApprovalDecisionWaiters } from './approval-decision-waiters';
import { approvalView, decideByPolicy, denialReason } from './daemon-approvals';
import type { DaemonApprovalOptions, DaemonTurnEvent, DaemonTurnRecords } from './daemon-turn-types';
import { errorMessage } from './error-message';
import { checkpointOf, type ResumeState, resumeKey } from './turn-checkpoint';
import type { TurnEntry } from './turn-entry';

/** What an `ApprovalGate` needs besides the policies. */
export interface ApprovalGateOptions {
  /** The store, the agents' policies and how often a held call checks for its answer. */
  approvals: DaemonApprovalOptions;
  /** This process's id: it holds calls and takes decisions under it. */
  workerId: string;
  /** The turn records: who holds a turn now, when a decision could not be taken. Absent: nobody else. */
  records?: Pick<DaemonTurnRecords, 'get'>;
  /** Adds an event to a turn's log and streams (`TurnRegistry.push`). */
  push(entry: TurnEntry, event: DaemonTurnEvent): void;
  /** Lets a turn go, another worker's now, and aborts its loop (`TurnRegistry.letGo`). */
  letGo(entry: TurnEntry, letGo: 'taken-over', reason: Error): void;
  /** Receives one-line messages (mismatched approvals, decisions not taken). Default: none. */
  log?: (line: string) => void;
}

function activityOf(tool: AnyWorkerAgentTool, params: unknown): string {
  try {
    const label = tool.describeActivity(params as never);
    return typeof label === 'string' && label !== '' ? label : tool.name;
  } catch {
    return tool.name;
  }
}

/** A decided approval as it was when requested: pending, nothing of its answer. */
function asRequested(record: ApprovalRecord): ApprovalRecord {
  const {
    reason: _reason,
    answeredBy: _by,
    decidedAt: _decided,
    consumedAt: _consumed,
    consumedBy: _consumer,
    ...requested
  } = record;
  return { ...requested, status: 'pending' };
}

/** Arguments as stored (a JSON round trip: `undefined` fields dropped), compared key order aside. */
function sameArguments(stored: unknown, params: unknown): boolean {
  return isDeepStrictEqual(stored, JSON.parse(JSON.stringify(params ?? null)));
}

/**
 * The approval gate in front of every call of a daemon's turns: its agent's policy allows it,
 * refuses it, or holds it (recorded in the control plane with the turn's checkpoint, its steps being in
 * its journal) until an operator answers from any process, or the approval expires; then the decision
 * is acted on. A continued turn's held calls, reached again as its journal is replayed, take their
 * stored decisions; its calls that may have run before (in doubt) are decided by the agent's in-doubt
 * policy.
 *
 * Contract: `beforeToolCall` never rejects: every refusal is a decision with a reason the model reads.
 * A decision runs at most one call, once, in whichever process takes it (`consume`), and only the call
 * it was recorded for: same tool, same arguments as stored (what the operator was shown). While a call
 * is held the turn's status is `waiting-approval` and its time limit is paused. Before a call is held,
 * the turn's journal holds every step so far (`TurnEntry.keepJournal` with `serve.journal: false`).
 */
export class ApprovalGate {
  readonly #options: ApprovalGateOptions;
  readonly #waiters: ApprovalDecisionWaiters;

  constructor(options: ApprovalGateOptions) {
    this.#options = options;
    this.#waiters = new ApprovalDecisionWaiters({
      store: options.approvals.store,
      ...(options.approvals.pollMs === undefined ? {} : { pollMs: options.approvals.pollMs }),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
  }

  /**
   * The decision on one call: from the continued turn's stored decision, else the policy; a call the
   * policy asks about is held until decided.
   */
  async beforeToolCall(
    entry: TurnEntry,
    call: ToolCallRequest,
    tool: AnyWorkerAgentTool,
    resume: ResumeState | undefined,
  ): Promise<ToolCallDecision> {
    const key = toolKey(call);
    if (resume !== undefined) {
      const resumed = this.#decideResumed(entry, call, tool, key, resume);
      if (resumed !== undefined) return resumed;
    }
    const policy = this.#options.approvals.policy(entry.snapshot.agent);
    if (call.inDoubt === true && !tool.isReadOnly && tool.idempotent !== true) {
      // Its effect is unknown: run again only if an operator says so.
      if (policy.inDoubt !== 'ask') {
        return {
          allow: false,
          reason: `agent ${entry.snapshot.agent} reports calls in doubt without running them again (approvals.inDoubt: report)`,
        };
      }
      const held = await this.#hold(entry, call, tool, key, policy);
      return 'allow' in held ? held : this.#actOn(entry, held, call, key);
    }
    const { decision, field } = decideByPolicy(policy, tool, key, entry.snapshot.source);
    if (decision === 'deny') {
      return {
        allow: false,
        reason: `the approval policy of agent ${entry.snapshot.agent} refuses ${key} (${field}: deny)`,
      };
    }
    if (decision === 'allow') {
      entry.allowed.add(call.itemIndex);
      return { allow: true };
    }
    const held = await this.#hold(entry, call, tool, key, policy);
    return 'allow' in held ? held : this.#actOn(entry, held, call, key);
  }

  /**
   * A continued turn's call decided by what the stopped process left: its stored decision, or (the
   * upgrade path, a transcript checkpoint) for a call let run there with no output recorded, a
   * refusal unless it is read-only. Undefined: the policy decides.
   */
  #decideResumed(
    entry: TurnEntry,
    call: ToolCallRequest,
    tool: AnyWorkerAgentTool,
    key: string,
    resume: ResumeState,
  ): Promise<ToolCallDecision> | ToolCallDecision | undefined {
    const item = call.itemIndex;
    const stored =
      resume.approvals.get(resumeKey({ callIndex: item, callId: call.callId })) ??
      resume.approvals.get(resumeKey({ callId: call.callId }));
    if (stored !== undefined) {
      resume.approvals.delete(resumeKey(stored));
      // Its request was logged by the process that held it: a log rebuilt from the journal (not
      // the upgrade path's, which the checkpoint carried) shows it again right before its decision,
      // timed when it was asked for (a timeline shows how long the call waited).
      if (resume.items === undefined) {
        const requested = approvalView(asRequested(stored));
        this.#options.push(entry, { type: 'approval-requested', approval: requested, at: stored.createdAt });
      }
      return this.#actOn(entry, stored, call, key);
    }
    if (!resume.started.delete(item)) return undefined;
    // Let run by the process that stopped, and no output recorded: it may have run.
    if (tool.isReadOnly) {
      entry.allowed.add(item);
      return { allow: true };
    }
    return {
      allow: false,
      reason:
        'the worker running this turn stopped while this call was under way, so it may have run; it was not run again: check its effect before calling it again',
    };
  }

  /**
   * What the held call would replace, read before its approval is recorded; undefined when it
   * replaces nothing or could not be read (the approval is recorded without it, and the log says why).
   */
  async #fileBefore(entry: TurnEntry, key: string, params: unknown) {
    const read = this.#options.approvals.fileBefore;
    if (read === undefined) return undefined;
    try {
      return await read({ agentId: entry.snapshot.agent, toolKey: key, params });
    } catch (error) {
      this.#options.log?.(
        `switchyard serve: turn ${entry.snapshot.id}: could not read what ${key} would replace: ${errorMessage(error)}`,
      );
      return undefined;
    }
  }

  /**
   * Records the call's approval with the turn's checkpoint (after its journal holds every step so
   * far) and, while it is pending, holds the call until it is decided: the decided approval, or a
   * refusal when it could not be recorded or the turn was aborted meanwhile.
   */
  async #hold(
    entry: TurnEntry,
    call: ToolCallRequest,
    tool: AnyWorkerAgentTool,
    key: string,
    policy: ApprovalPolicy,
  ): Promise<ApprovalRecord | ToolCallDecision> {
    const item = call.itemIndex;
    const fileBefore = await this.#fileBefore(entry, key, call.params);
    let approval: ApprovalRecord;
    try {
      // Record before holding: whoever continues the turn replays its journal.
      await entry.keepJournal?.();
      approval = await this.#options.approvals.store.request({
        turnId: entry.snapshot.id,
        workerId: this.#options.workerId,
        callId: call.callId,
        callIndex: item,
        toolKey: key,
        activity: activityOf(tool, call.params),
        arguments: call.params,
        approvers: policy.approvers,
        expiresInMs: policy.expiresInSeconds * 1000,
        checkpoint: checkpointOf(entry),
        ...(fileBefore === undefined ? {} : { fileBefore }),
      });
    } catch (error) {
      // Arguments that cannot be stored whole (too large, or text PostgreSQL cannot hold) land here:
      // nothing is held, or allowed, that an operator cannot be shown exactly.
      return {
        allow: false,
        reason: `this call needs an operator's approval, which could not be recorded (${errorMessage(error)}); it was not run`,
      };
    }
    if (approval.status !== 'pending') return approval;
    entry.held.set(item, approval);
    if (entry.held.size === 1) entry.deadline?.pause();
    entry.snapshot.status = 'waiting-approval';
    this.#options.push(entry, { type: 'approval-requested', approval: approvalView(approval) });
    entry.markDetached();
    const decided = await this.#waiters.wait(approval, entry.signal);
    entry.held.delete(item);
    if (entry.held.size === 0) {
      entry.deadline?.resume();
      if (entry.letGo === undefined) entry.snapshot.status = 'running';
    }
    return (
      decided ?? {
        allow: false,
        reason: 'the turn was aborted while this call waited for approval; it was not run',
      }
    );
  }

  /**
   * Acts on a decided approval, once: runs an allowed call, gives any other its reason. An approval
   * runs only the call it was recorded for: same tool, same arguments as stored (what the operator
   * was shown), else the call is refused.
   */
  async #actOn(
    entry: TurnEntry,
    approval: ApprovalRecord,
    call: ToolCallRequest,
    key: string,
  ): Promise<ToolCallDecision> {
    const { workerId } = this.#options;
    let consumed: ApprovalRecord | undefined;
    try {
      consumed = await this.#options.approvals.store.consume({ id: approval.id, workerId });
    } catch (error) {
      return {
        allow: false,
        reason: `its approval could not be read (${errorMessage(error)}); it was not run`,
      };
    }
    if (consumed === undefined) {
      if (approval.consumedBy !== undefined && approval.consumedBy !== workerId) {
        // A continued turn: the worker that stopped had taken this decision, and may have run the call.
        return {
          allow: false,
          reason: `the worker that ran this turn before (${approval.consumedBy}) had started this ${approval.status} call when it stopped, so it may have run; it was not run again: check its effect before calling it again`,
        };
      }
      return this.#notConsumed(entry, approval);
    }
    this.#options.push(entry, { type: 'approval-resolved', approval: approvalView(consumed) });
    if (consumed.status !== 'allowed') return { allow: false, reason: denialReason(consumed) };
    if (consumed.toolKey !== key || !sameArguments(consumed.arguments, call.params)) {
      this.#options.log?.(
        `switchyard serve: turn ${entry.snapshot.id}: approval ${consumed.id} was for ${consumed.toolKey} with other arguments than call ${call.callId} (${key}) has; the call was not run`,
      );
      return {
        allow: false,
        reason: `the approval an operator gave was for ${consumed.toolKey} with other arguments than this call has; it was not run`,
      };
    }
    entry.allowed.add(call.itemIndex);
    return { allow: true };
  }

  /**
   * A decided approval this worker could not take: another worker holds the turn now (this one was
   * taken for dead, so it runs nothing more), or its decision was acted on already; only the turn's
   * record tells which, and only a real take-over lets the turn go unrecorded here.
   */
  async #notConsumed(entry: TurnEntry, approval: ApprovalRecord): Promise<ToolCallDecision> {
    let holder: string | undefined;
    try {
      holder = (await this.#options.records?.get(entry.snapshot.id))?.workerId;
    } catch (error) {
      this.#options.log?.(
        `switchyard serve: could not read turn ${entry.snapshot.id} to see who holds it: ${errorMessage(error)}`,
      );
    }
    if (holder !== undefined && holder !== this.#options.workerId) {
      this.#options.letGo(entry, 'taken-over', new Error(`another worker (${holder}) took this turn over`));
      return { allow: false, reason: 'another worker took this turn over' };
    }
    return {
      allow: false,
      reason: `its approval (${approval.id}, ${approval.status}) had already been acted on, so it was not run again`,
    };
  }

  /** An approval decided by this process (its HTTP API): a call of this process waiting on it goes on now. */
  notifyDecision(record: ApprovalRecord): void {
    this.#waiters.notify(record);
  }

  /** Stops polling for decisions (every turn has ended). */
  stop(): void {
    this.#waiters.stop();
  }
}
