import { describe, expect, it } from 'vitest';
import { LoadSequence } from '../src/ui/load-sequence';

type List = string[];
const add =
  (id: string) =>
  (current: List | undefined): List => [...(current ?? []).filter((entry) => entry !== id), id];
const remove =
  (id: string) =>
  (current: List | undefined): List =>
    (current ?? []).filter((entry) => entry !== id);

describe('LoadSequence: which answer a resource shows', () => {
  it('applies again on top of an answer what the page learnt while it loaded (a live event is not sent twice)', () => {
    const sequence = new LoadSequence<List>();
    const load = sequence.begin();
    // The list was read before the held call was recorded; its event came before the answer.
    sequence.record(add('approval_1'));
    expect(sequence.answer(load, [])).toEqual({ value: ['approval_1'] });
  });

  it('applies the changes in the order they were made, so an answer and then a removal leave nothing', () => {
    const sequence = new LoadSequence<List>();
    const load = sequence.begin();
    sequence.record(add('approval_1'));
    sequence.record(remove('approval_1'));
    expect(sequence.answer(load, ['approval_1'])).toEqual({ value: [] });
  });

  it('drops the answer of a load a later one overtook, whichever answers first', () => {
    const sequence = new LoadSequence<List>();
    const first = sequence.begin();
    const second = sequence.begin();
    expect(sequence.answer(second, ['approval_1'])).toEqual({ value: ['approval_1'] });
    // The first load read the list before the approval existed: shown last, it would hide it.
    expect(sequence.answer(first, [])).toBeUndefined();
    expect(sequence.fail(first)).toBe(false);
  });

  it('keeps no change once no load is under way, and none from before a load began', () => {
    const sequence = new LoadSequence<List>();
    sequence.record(add('before any load'));
    const first = sequence.begin();
    sequence.record(add('during the first'));
    expect(sequence.answer(first, [])).toEqual({ value: ['during the first'] });
    sequence.record(add('between loads'));
    const second = sequence.begin();
    expect(sequence.answer(second, ['loaded'])).toEqual({ value: ['loaded'] });
  });

  it('takes a whole value set meanwhile over the answer, as the newer of the two', () => {
    const sequence = new LoadSequence<List>();
    const load = sequence.begin();
    sequence.record(['answer of the request that changed it']);
    expect(sequence.answer(load, ['read before'])).toEqual({
      value: ['answer of the request that changed it'],
    });
  });

  it('forgets the changes kept for a latest load that failed', () => {
    const sequence = new LoadSequence<List>();
    const failed = sequence.begin();
    sequence.record(add('shown already'));
    expect(sequence.fail(failed)).toBe(true);
    const next = sequence.begin();
    expect(sequence.answer(next, ['reloaded'])).toEqual({ value: ['reloaded'] });
  });
});
