import { describe, expect, it } from 'vitest';
import { type CpuProfile, topFunctions } from './top-functions';

const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });

// (root) -> handle -> query -> parse, and handle -> handle (recursion).
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2] },
    {
      id: 2,
      callFrame: frame('handle', 'file:///repo/apps/worker/dist/cli.js', 9),
      children: [3, 5],
    },
    {
      id: 3,
      callFrame: frame('query', 'file:///repo/node_modules/.pnpm/pg@8.23.1/node_modules/pg/lib/client.js', 4),
      children: [4],
    },
    { id: 4, callFrame: frame('', 'file:///repo/node_modules/.pnpm/pg@8.23.1/node_modules/pg/lib/parse.js') },
    { id: 5, callFrame: frame('handle', 'file:///repo/apps/worker/dist/cli.js', 9) },
  ],
  samples: [4, 4, 3, 5, 2],
  // The first delta is the time before the first sample; each sample's time is the delta after it.
  timeDeltas: [100, 1000, 2000, 3000, 4000, 5000],
};

describe('topFunctions', () => {
  it('sums self time per function, largest first, with short locations', () => {
    const costs = topFunctions(profile);
    expect(costs[0]).toEqual({ name: 'handle (apps/worker/dist/cli.js:10)', selfMs: 9, totalMs: 15 });
    expect(costs.find((cost) => cost.name === '(anonymous) (pg/lib/parse.js:1)')).toEqual({
      name: '(anonymous) (pg/lib/parse.js:1)',
      selfMs: 3,
      totalMs: 3,
    });
    expect(costs.find((cost) => cost.name === 'query (pg/lib/client.js:5)')).toMatchObject({
      selfMs: 3,
      totalMs: 6,
    });
  });

  it('counts a recursive function once per sample in its total', () => {
    const handle = topFunctions(profile).find((cost) => cost.name.startsWith('handle'));
    // Every sample is under handle: 1 + 2 + 3 + 4 + 5 ms, not more for the nested handle frame.
    expect(handle?.totalMs).toBe(15);
  });
});
