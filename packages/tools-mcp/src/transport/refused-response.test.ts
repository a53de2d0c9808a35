import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpLimitError } from '../errors/mcp-limit-error';
import { limitErrorOf, REFUSED_RESPONSE_CODE, refusedMessageId, refusedResponse } from './refused-response';

describe('the id of a refused message', () => {
  it.each([
    ['at the start', '{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xxx', 'xx"}]}}', 7],
    ['first of all', '{ "id" : "call-7" , "result": ', '...}', 'call-7'],
    [
      'last, as the SDK writes it',
      '{"result":{"content":[{"text":"xxx',
      'xxx"}]},"jsonrpc":"2.0","id":12}',
      12,
    ],
  ])('is read when it is a top-level member %s', (_where, head, tail, id) => {
    expect(refusedMessageId(head, tail)).toBe(id);
  });

  it.each([
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xx', 'xx"}}'],
    ['an id nested in the result', '{"result":{"items":[{"id":3', '{"id":3}]}}'],
    ['a nested id closing one level down', '{"jsonrpc":"2.0","result":{"a":', ',"id":9}}'],
    ['an id inside a string', '{"result":"say \\"id\\":4', 'x\\",\\"id\\":4}"}'],
  ])('is not guessed for %s', (_what, head, tail) => {
    expect(refusedMessageId(head, tail)).toBeUndefined();
  });
});

describe('the answer that stands in for a refused one', () => {
  it('fails its request with the limit, which the connection reads back', () => {
    const error = new McpLimitError({ server: 'docs', limit: 'maxMessageBytes', message: 'too big' });
    const response = refusedResponse(5, error);
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: REFUSED_RESPONSE_CODE, message: 'too big', data: { limit: 'maxMessageBytes' } },
    });
    // The SDK rejects the request with an McpError built from the answer.
    const rejected = new McpError(REFUSED_RESPONSE_CODE, 'too big', { limit: 'maxMessageBytes' });
    const read = limitErrorOf(rejected, 'docs');
    expect(McpLimitError.isInstance(read)).toBe(true);
    expect(read).toMatchObject({ server: 'docs', limit: 'maxMessageBytes', message: 'too big' });
    expect(limitErrorOf(error, 'docs')).toBe(error);
    expect(limitErrorOf(new McpError(ErrorCode.InternalError, 'boom'), 'docs')).toBeUndefined();
  });
});
