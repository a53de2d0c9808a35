// What sample-entry.ts re-exports.
/** Options of `sampleFunction`. */
export interface SampleOptions {
  value: number;
}
/** A shape. */
export type SampleShape = { kind: 'sample' };
/** A function. */
export function sampleFunction(options: SampleOptions): number {
  return options.value;
}
/** A constant. */
export const sampleValue = 2;
/** An error class: a value and a type, counted as runtime. */
export class SampleError extends Error {}
