/**
 * The event types with which a turn ends once its model called one tool: the call, the next model
 * request streaming the answer (as many `text-delta`s as `types`, the whole stream's types, holds),
 * then `turn-end`. A test compares a whole stream with `[...start, ...toolCallThenAnswer(types)]`.
 */
export function toolCallThenAnswer(types: readonly string[]): string[] {
  return [
    'tool-call-start',
    'tool-call-end',
    'model-request-start',
    ...types.filter((type) => type === 'text-delta'),
    'model-request-end',
    'turn-end',
  ];
}
