import { thrownBy } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_BUDGETS } from './agent-budgets';
import { parseConfig } from './load-config';
import { budgetsOf } from './resolve-agent';
import { WorkerConfigError } from './worker-config-error';

describe('agent budgets in the configuration', () => {
  it('gives every agent the documented defaults when the file says nothing', () => {
    const config = parseConfig({}, { env: {} });
    expect(budgetsOf(config, 'main')).toEqual({
      tokensPerTurn: 2_000_000,
      tokensPerDay: 50_000_000,
      turnsAtOnce: 16,
      schedulesPerHour: 30,
      scheduleFiresPerHour: 120,
      workflowsPerHour: 30,
      backgroundJobsPerHour: 60,
    });
    expect(config.budgets).toEqual(DEFAULT_AGENT_BUDGETS);
  });

  it("applies `budgets` to every agent and an agent's own over it, field by field", () => {
    const config = parseConfig(
      {
        budgets: { tokensPerDay: 1_000, turnsAtOnce: 2 },
        agents: { ops: { budgets: { turnsAtOnce: 1, schedulesPerHour: 3 } }, other: {} },
      },
      { env: {} },
    );
    expect(budgetsOf(config, 'main')).toEqual({
      ...DEFAULT_AGENT_BUDGETS,
      tokensPerDay: 1_000,
      turnsAtOnce: 2,
    });
    expect(budgetsOf(config, 'ops')).toEqual({
      ...DEFAULT_AGENT_BUDGETS,
      tokensPerDay: 1_000,
      turnsAtOnce: 1,
      schedulesPerHour: 3,
    });
    expect(budgetsOf(config, 'other')).toEqual(budgetsOf(config, 'main'));
  });

  it.each([
    [{ budgets: { tokensPerTurn: 0 } }, 'budgets.tokensPerTurn'],
    [{ budgets: { tokensPerDay: 1.5 } }, 'budgets.tokensPerDay'],
    [{ budgets: { turnsAtOnce: -1 } }, 'budgets.turnsAtOnce'],
    [{ budgets: { workflowsPerHour: '10' } }, 'budgets.workflowsPerHour'],
    [{ budgets: { tokensPerHour: 10 } }, 'budgets.tokensPerHour'],
    [
      { agents: { ops: { budgets: { backgroundJobsPerHour: 0 } } } },
      'agents.ops.budgets.backgroundJobsPerHour',
    ],
    [
      { agents: { ops: { budgets: { scheduleFiresPerHour: null } } } },
      'agents.ops.budgets.scheduleFiresPerHour',
    ],
  ])('refuses %j naming %s', (raw, field) => {
    const error = thrownBy(() => parseConfig(raw, { env: {} }), WorkerConfigError);
    expect(error.issues.map((issue) => issue.field)).toContain(field);
  });
});
