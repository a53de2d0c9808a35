import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import type { ApprovalPolicy, ApprovalTurnSource } from '../config/worker-config';
import { decideByPolicy } from './daemon-approvals';
import { TurnDeadline } from './turn-deadline';

const SOURCES: readonly ApprovalTurnSource[] = ['api', 'schedule', 'task', 'job'];

/** A policy as `parseConfig` resolves it from a configuration's `approvals` and `agents`. */
function policyOf(approvals: Record<string, unknown>, agent?: Record<string, unknown>): ApprovalPolicy {
  const config = parseConfig(
    { approvals, ...(agent === undefined ? {} : { agents: { ops: { approvals: agent } } }) },
    { env: {} },
  );
  return agent === undefined ? config.approvals : (config.agents.ops?.approvals ?? config.approvals);
}

const destructive = { isDestructive: true, isReadOnly: false };
const readOnly = { isDestructive: false, isReadOnly: true };
const writes = { isDestructive: false, isReadOnly: false };

describe('approval policy', () => {
  it('decides by tool key first, then by the tool’s metadata, naming the field that decided', () => {
    const policy = policyOf({ destructive: 'ask', tools: { 'calc.add': 'deny', read_file: 'ask' } });
    const cases = [
      { tool: destructive, key: 'write_file', decision: 'ask', field: 'approvals.destructive' },
      { tool: destructive, key: 'calc.add', decision: 'deny', field: 'approvals.tools.calc.add' },
      { tool: readOnly, key: 'read_file', decision: 'ask', field: 'approvals.tools.read_file' },
      { tool: readOnly, key: 'list_files', decision: 'allow', field: 'default' },
    ];
    for (const { tool, key, decision, field } of cases) {
      for (const source of SOURCES)
        expect(decideByPolicy(policy, tool, key, source)).toEqual({ decision, field });
    }
    // A tool that writes without being marked destructive runs unless listed.
    expect(decideByPolicy(policy, writes, 'update_todos', 'schedule')).toEqual({
      decision: 'allow',
      field: 'approvals',
    });
    // A key that only looks like an inherited property is not one.
    expect(decideByPolicy(policy, writes, 'constructor', 'job').decision).toBe('allow');
  });

  it('holds destructive calls of schedule, task and job turns without a policy, and runs those of API turns', () => {
    const policy = policyOf({});
    expect(SOURCES.map((source) => decideByPolicy(policy, destructive, 'run_command', source))).toEqual([
      { decision: 'allow', field: 'default' },
      { decision: 'ask', field: 'default' },
      { decision: 'ask', field: 'default' },
      { decision: 'ask', field: 'default' },
    ]);
    expect(decideByPolicy(policy, readOnly, 'read_file', 'schedule').decision).toBe('allow');
    expect(decideByPolicy(policy, writes, 'update_todos', 'job').decision).toBe('allow');
  });

  it('takes a decision for every source, or source by source over the defaults, an agent’s own first', () => {
    const optOut = policyOf({ destructive: 'allow' });
    for (const source of SOURCES) {
      expect(decideByPolicy(optOut, destructive, 'write_file', source)).toEqual({
        decision: 'allow',
        field: 'approvals.destructive',
      });
    }
    const bySource = policyOf({ destructive: { schedule: 'allow', api: 'deny' } });
    expect(SOURCES.map((source) => decideByPolicy(bySource, destructive, 'write_file', source))).toEqual([
      { decision: 'deny', field: 'approvals.destructive.api' },
      { decision: 'allow', field: 'approvals.destructive.schedule' },
      { decision: 'ask', field: 'default' },
      { decision: 'ask', field: 'default' },
    ]);
    const own = policyOf({ destructive: 'deny', readOnly: 'ask' }, { destructive: { job: 'allow' } });
    expect(SOURCES.map((source) => decideByPolicy(own, destructive, 'write_file', source).field)).toEqual([
      'approvals.destructive',
      'approvals.destructive',
      'approvals.destructive',
      'agents.ops.approvals.destructive.job',
    ]);
    expect(decideByPolicy(own, destructive, 'write_file', 'job').decision).toBe('allow');
    expect(decideByPolicy(own, readOnly, 'read_file', 'api')).toEqual({
      decision: 'ask',
      field: 'approvals.readOnly',
    });
  });

  it('decides a tool marked both destructive and read-only as destructive', () => {
    const policy = policyOf({ readOnly: 'allow' });
    const both = { isDestructive: true, isReadOnly: true };
    expect(decideByPolicy(policy, both, 'ops.purge', 'schedule').decision).toBe('ask');
  });
});

describe('turn deadline', () => {
  it('does not count paused time, and aborts once the running time reaches the limit', async () => {
    const deadline = new TurnDeadline(300);
    deadline.pause();
    deadline.pause();
    await new Promise((resolve) => setTimeout(resolve, 450));
    deadline.resume();
    // Still paused once (nested): not aborted although 450 ms went by.
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.activeMs()).toBeLessThan(300);
    deadline.resume();
    await new Promise<void>((resolve) =>
      deadline.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    expect(String((deadline.signal.reason as Error).message)).toBe(
      'the turn ran longer than its limit of 300 ms (limits.turnTimeoutMs)',
    );
    deadline.dispose();
  });

  it('counts time already run elsewhere (a continued turn)', async () => {
    const deadline = new TurnDeadline(10_000);
    deadline.spend(9_950);
    await new Promise<void>((resolve) =>
      deadline.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    expect(deadline.activeMs()).toBeGreaterThanOrEqual(9_950);
    deadline.dispose();
  });
});
