import type { FakeRequest, FakeResponse } from '@switchyard/testkit';

/**
 * The fake model of a busy-daemon turn: `calls` model responses that each ask for one `list_files`
 * of the home, then a text answer. Stateless (it counts the outputs already in the request), so
 * any number of turns can share one server.
 */
export function listFilesScript(calls: number): (request: FakeRequest) => FakeResponse {
  return (request) =>
    request.functionCallOutputs.length < calls
      ? { functionCalls: [{ name: 'list_files', arguments: { pattern: '*' }, chunks: 1 }] }
      : { text: 'The home holds the notes.', textChunks: 1 };
}
