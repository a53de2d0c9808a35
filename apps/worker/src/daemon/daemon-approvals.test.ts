import { describe, expect, it } from 'vitest';
import type { ApprovalPolicy } from '../config/worker-config';
import { decideByPolicy } from './daemon-approvals';
import { TurnDeadline } from './turn-deadline';

const policy: ApprovalPolicy = {
  destructive: 'ask',
  readOnly: 'allow',
  tools: { 'calc.add': 'deny', read_file: 'ask' },
  expiresInSeconds: 60,
  approvers: ['operator'],
};

describe('approval policy', () => {
  it('decides by tool key first, then by the tool’s metadata, naming the field that decided', () => {
    const destructive = { isDestructive: true, isReadOnly: false };
    const readOnly = { isDestructive: false, isReadOnly: true };
    const writes = { isDestructive: false, isReadOnly: false };
    const cases = [
      { tool: destructive, key: 'write_file', decision: 'ask', field: 'approvals.destructive' },
      { tool: destructive, key: 'calc.add', decision: 'deny', field: 'approvals.tools.calc.add' },
      { tool: readOnly, key: 'read_file', decision: 'ask', field: 'approvals.tools.read_file' },
      { tool: readOnly, key: 'list_files', decision: 'allow', field: 'approvals.readOnly' },
    ];
    for (const { tool, key, decision, field } of cases) {
      expect(decideByPolicy(policy, tool, key)).toEqual({ decision, field });
    }
    // A tool that writes without being marked destructive runs unless listed.
    expect(decideByPolicy(policy, writes, 'update_todos')).toEqual({ decision: 'allow', field: 'approvals' });
    // A key that only looks like an inherited property is not one.
    expect(decideByPolicy(policy, writes, 'constructor').decision).toBe('allow');
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
