import { describe, expect, it } from 'vitest';
import { raceAbort } from './race-abort';

describe('raceAbort', () => {
  it('rejects at once with the reason when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped before'));
    // A promise that never settles: only the already-aborted check can end the race.
    await expect(raceAbort(new Promise<never>(() => {}), controller.signal)).rejects.toThrow(
      'stopped before',
    );
  });

  it('rejects with the given reason instead of the signal reason', async () => {
    const controller = new AbortController();
    controller.abort();
    const reason = Symbol('cancelled');
    await expect(raceAbort(new Promise<never>(() => {}), controller.signal, reason)).rejects.toBe(reason);
  });

  it('rejects when the signal aborts while the promise is pending', async () => {
    const controller = new AbortController();
    const raced = raceAbort(new Promise<never>(() => {}), controller.signal);
    controller.abort(new Error('stopped during'));
    await expect(raced).rejects.toThrow('stopped during');
  });

  it('settles with the promise when it wins, and leaves no listener behind', async () => {
    const controller = new AbortController();
    let listeners = 0;
    const { signal } = controller;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners -= 1;
      remove(...args);
    }) as typeof signal.removeEventListener;
    await expect(raceAbort(Promise.resolve(7), signal)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error('tool failed')), signal)).rejects.toThrow('tool failed');
    expect(listeners).toBe(0);
  });
});
