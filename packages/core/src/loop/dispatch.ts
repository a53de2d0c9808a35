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
}

/**
 * Runs one model response's calls in the model's order: each maximal run of consecutive parallel
 * calls is one concurrent batch; a sequential call is a batch of its own, so it waits for all
 * before it and blocks all after it. Outputs come back in call order, whatever order the calls
 * finish in.
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
      const batch: Promise<TOutput>[] = [];
      for (let position = index; position < end; position += 1) {
        batch.push(options.run(calls[position] as TCall, position));
      }
      const results = await Promise.all(batch);
      for (let offset = 0; offset < results.length; offset += 1) {
        outputs[index + offset] = results[offset] as TOutput;
      }
    }
    index = end;
  }
  return outputs;
}
