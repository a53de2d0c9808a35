import type { TurnRecord } from '@switchyard/control-plane';
import { describe, expect, it } from 'vitest';
import type { DaemonTurnSnapshot } from '../../daemon-turns';
import type { TurnObserver } from '../../turn-registry';
import { EventFeed, type NumberedFeedMessage } from './event-feed';

const snapshot = (status: DaemonTurnSnapshot['status']): DaemonTurnSnapshot => ({
  id: 'turn_own',
  agent: 'default',
  source: 'api',
  title: 'check the release',
  status,
  output: '',
  usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 },
  iterations: 0,
  createdAt: new Date().toISOString(),
});

const recordOf = (id: string, status: TurnRecord['status']): TurnRecord =>
  ({
    ...snapshot(status),
    id,
    agentId: 'default',
    prompt: 'check the release',
    limitedBy: [],
  }) as unknown as TurnRecord;

describe('the event feed', () => {
  it('never sends a status of its own turn read from the records after the live one moved on', async () => {
    let observer: TurnObserver | undefined;
    let readRecords: (records: TurnRecord[]) => void = () => {};
    let reads = 0;
    const feed = new EventFeed({
      turns: {
        observe: (next) => {
          observer = next;
          return () => {};
        },
        has: (id) => id === 'turn_own',
      },
      controlPlane: {
        turns: {
          changes: () => {
            reads += 1;
            return new Promise((resolve) => {
              readRecords = (turns) => resolve({ turns, now: new Date().toISOString() });
            });
          },
        },
        approvals: { changes: async () => ({ approvals: [], now: new Date().toISOString() }) },
      },
      agents: ['default'],
      pollMs: 5,
    });
    const sent: NumberedFeedMessage[] = [];
    const unsubscribe = feed.subscribe((message) => sent.push(message));
    try {
      observer?.(snapshot('running'), undefined);
      observer?.(snapshot('waiting-approval'), undefined);
      // The read started while the turn waited; the turn runs again before its rows come back.
      await expect.poll(() => reads).toBeGreaterThan(0);
      observer?.(snapshot('running'), undefined);
      readRecords([recordOf('turn_own', 'waiting-approval'), recordOf('turn_other', 'running')]);
      await expect
        .poll(() => sent.filter((message) => message.event === 'turn').map((message) => message.data))
        .toContainEqual(expect.objectContaining({ id: 'turn_other', status: 'running' }));
      const own = sent.filter((message) => message.event === 'turn' && message.data.id === 'turn_own');
      expect(own.map((message) => (message.data as DaemonTurnSnapshot).status)).toEqual([
        'running',
        'waiting-approval',
        'running',
      ]);
    } finally {
      unsubscribe();
    }
  });
});
