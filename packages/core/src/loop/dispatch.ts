/** How `dispatchToolCalls` schedules and records one response's calls. */
export interface DispatchOptions<TCall, TOutput> {
  /** Whether the call may run concurrently with its parallel neighbours. */
  isParallel(call: TCall): boolean;
  /** Runs one call to its output. Must not reject: failures are outputs too. */
  run(call: TCall, index: number): Promise<TOutput>;
  /** Checked before each batch: true stops dispatch, and every call not run yet gets `skip`. */
  shouldStop(): boolean;
  /** The output of a call that was never run. */
  skip(call: TCall, index: number): TOutput;
  /**
   * Most calls of a parallel run that run at once (default: no bound). The rest start in call order,
   * each as soon as one of those running finishes.
   */
  maxConcurrent?: number;
}

/**
 * Runs one model response's calls in the model's order: each maximal run of consecutive parallel
 * calls is one concurrent batch, at most `maxConcurrent` of them running at once (the others start in
 * order as running ones finish); a sequential call is a batch of its own, so it waits for all before
 * it and blocks all after it. Outputs come back in call order, whatever order the calls finish in.
 *
 * Contract: never rejects if `run` never rejects; every call gets exactly one output.
 */
export async function dispatchToolCalls<TCall, TOutput>(
  calls: readonly TCall[],
  options: DispatchOptions<TCall, TOutput>,
): Promise<TOutput[]> {
  const outputs = new Array<TOutput>(calls.length);
  let index = 0;
  while (index < calls.length) {
    if (options.shouldStop()) {
      for (; index < calls.length; index += 1) outputs[index] = options.skip(calls[index] as TCall, index);
      break;
    }
    const call = calls[index] as TCall;
    let end = index + 1;
    if (options.isParallel(call)) {
      while (end < calls.length && options.isParallel(calls[end] as TCall)) end += 1;
    }
    if (end - index === 1) {
      outputs[index] = await options.run(call, index);
    } else {
      // A pool of runners, each taking the next call not started: calls start in the model's order.
      let next = index;
      const runner = async () => {
        while (next < end) {
          const position = next;
          next += 1;
          outputs[position] = await options.run(calls[position] as TCall, position);
        }
      };
      const runners = Math.min(end - index, options.maxConcurrent ?? Number.POSITIVE_INFINITY);
      await Promise.all(Array.from({ length: runners }, runner));
    }
    index = end;
  }
  return outputs;
}
