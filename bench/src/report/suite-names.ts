/** The suites, in the order their sections appear in RESULTS.md. */
export const SUITE_NAMES = [
  'loop-overhead',
  'parallel-batch',
  'schema-bytes',
  'argument-ladder',
  'tool-stall',
  'strict-coverage',
  'busy-daemon',
  'growing-fleet',
  'request-burst',
  'turns-in-flight',
  'stalled-readers',
  'streamed-text',
  'test-suite',
  'brain-recall',
  'chaos',
] as const;

/** A suite that writes a section of RESULTS.md. */
export type SuiteName = (typeof SUITE_NAMES)[number];
