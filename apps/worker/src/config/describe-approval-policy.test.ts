import { describe, expect, it } from 'vitest';
import { describeApprovalPolicy } from './describe-approval-policy';
import { parseConfig } from './load-config';

const policyOf = (raw: Record<string, unknown>, agent?: string) => {
  const config = parseConfig(raw, { env: {} });
  return agent === undefined ? config.approvals : (config.agents[agent]?.approvals ?? config.approvals);
};

describe('describeApprovalPolicy', () => {
  it('states the defaults: API turns run destructive calls, unattended turns hold them', () => {
    expect(describeApprovalPolicy('main', policyOf({}))).toBe(
      'agent main: destructive calls run in api turns (default) and wait for an approval in schedule, task and job turns (default); read-only calls run (default); no tool listed; held calls expire after 3600 s',
    );
  });

  it('names the field behind each decision, an explicit opt-out included', () => {
    expect(describeApprovalPolicy('main', policyOf({ approvals: { destructive: 'allow' } }))).toBe(
      'agent main: destructive calls run in every turn (approvals.destructive); read-only calls run (default); no tool listed; held calls expire after 3600 s',
    );
    const raw = {
      approvals: {
        destructive: { schedule: 'allow' },
        readOnly: 'ask',
        tools: { 'calc.add': 'deny', submit_result: 'ask' },
        expiresInSeconds: 600,
      },
      agents: { ops: { approvals: { destructive: { job: 'deny' } } } },
    };
    expect(describeApprovalPolicy('ops', policyOf(raw, 'ops'))).toBe(
      'agent ops: destructive calls run in api turns (default), run in schedule turns (approvals.destructive.schedule), wait for an approval in task turns (default) and are refused in job turns (agents.ops.approvals.destructive.job); read-only calls wait for an approval (approvals.readOnly); by tool: calc.add deny, submit_result ask; held calls expire after 600 s',
    );
  });
});
