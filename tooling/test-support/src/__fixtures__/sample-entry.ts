// An entry with every kind of export the packages use, for read-entry-exports.test.ts.

export type { SampleShape } from './sample-module';
export { SampleError, type SampleOptions, sampleFunction, sampleValue } from './sample-module';

/** Declared in the entry itself. */
export interface LocalInterface {
  field: string;
}
/** Declared in the entry itself. */
export type LocalAlias = 'a' | 'b';
/** Declared in the entry itself. */
export const LOCAL_CONSTANT = 1;
/** Declared in the entry itself. */
export function localFunction(): number {
  return LOCAL_CONSTANT;
}
