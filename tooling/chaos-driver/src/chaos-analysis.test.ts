import { describe, expect, it } from 'vitest';
import { analyzeChaos, type ChaosEvidence, parseLedger, percentile } from './chaos-analysis';

const request = (unit: string, step: number, at: number, responseId: string) => ({
  unit,
  step,
  slot: 0,
  at,
  responseId,
});

/** A run with one kill at t=1000 of the process running job-1, between its step-1 call and its record. */
function evidence(overrides: Partial<ChaosEvidence> = {}): ChaosEvidence {
  return {
    kills: [{ at: 1_000, slot: 0, aim: 'record', inFlight: ['job-1'] }],
    units: ['job-1'],
    lostUnits: [],
    ledger: parseLedger('job-1/1 990\n'),
    requests: [request('job-1', 1, 900, 'r1'), request('job-1', 2, 2_500, 'r2')],
    finalStep: 2,
    answeredAt: new Map([['r1', 950]]),
    journals: new Map([
      [
        'job-1',
        {
          responses: [{ iteration: 1, id: 'r1' }],
          turns: [
            { started: ['call_1'], outputs: [] },
            { started: ['call_1'], outputs: ['call_1'] },
          ],
        },
      ],
    ]),
    ...overrides,
  };
}

describe('chaos figures', () => {
  it('counts nothing when each call ran once and each step was asked once', () => {
    const figures = analyzeChaos(evidence());
    expect(figures).toMatchObject({
      recordedOutputRunAgain: 0,
      inDoubtRunAgain: 0,
      unrecordedRunAgain: 0,
      repeatedRequests: 0,
      unitsLost: 0,
      problems: [],
    });
    expect(figures.moments['effect-to-record']).toBe(1);
    expect(figures.resume).toMatchObject({ count: 1, p50Ms: 1_500 });
  });

  it('counts a call in doubt that ran again, and one with a recorded output that ran again', () => {
    const inDoubt = analyzeChaos(evidence({ ledger: parseLedger('job-1/1 990\njob-1/1 1800\n') }));
    expect(inDoubt.inDoubtRunAgain).toBe(1);
    expect(inDoubt.problems).toEqual(['job-1/1: executed 2 times (call in doubt)']);
    expect(inDoubt.resume.p50Ms).toBe(800);
    const recorded = analyzeChaos(
      evidence({
        ledger: parseLedger('job-1/1 990\njob-1/1 1800\n'),
        journals: new Map([
          ['job-1', { responses: [], turns: [{ started: ['call_1'], outputs: ['call_1'] }] }],
        ]),
      }),
    );
    expect(recorded.recordedOutputRunAgain).toBe(1);
  });

  it('counts requests for a step after its response was recorded, and lost units', () => {
    const figures = analyzeChaos(
      evidence({
        requests: [request('job-1', 1, 900, 'r1'), request('job-1', 1, 1_700, 'r3')],
        lostUnits: ['job-1'],
      }),
    );
    expect(figures.repeatedRequests).toBe(1);
    expect(figures.unitsLost).toBe(1);
    // A request before the recorded one (its answer never recorded) is not a repeat.
    const before = analyzeChaos(
      evidence({ requests: [request('job-1', 1, 800, 'r0'), request('job-1', 1, 900, 'r1')] }),
    );
    expect(before.repeatedRequests).toBe(0);
  });

  it('takes percentiles by nearest rank and ignores lines that are not ledger lines', () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 0.99)).toBe(5);
    expect(percentile([], 0.5)).toBeNaN();
    expect(parseLedger('api-3/2 17\nnoise\ntask-4b/1 20')).toEqual([
      { unit: 'api-3', step: 2, at: 17 },
      { unit: 'task-4b', step: 1, at: 20 },
    ]);
  });
});
