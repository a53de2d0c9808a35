import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createResponsesModel } from './responses-model';

describe('createResponsesModel configuration', () => {
  it('defaults Tool Search to native on api.openai.com and to client elsewhere', () => {
    const openai = new OpenAI({ apiKey: 'test' });
    const local = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:1/v1' });
    expect(createResponsesModel({ client: openai, model: 'm' }).defaultToolSearch).toBe('native');
    expect(createResponsesModel({ client: local, model: 'm' }).defaultToolSearch).toBe('client');
  });

  it('throws naming the field for a missing client, model or a bad chaining mode', () => {
    const client = new OpenAI({ apiKey: 'test' });
    expect(() => createResponsesModel({ client: undefined as never, model: 'm' })).toThrow(/client must be/);
    expect(() => createResponsesModel({ client, model: '' })).toThrow(/model must be/);
    expect(() => createResponsesModel({ client, model: 'm', chaining: 'sticky' as never })).toThrow(
      /chaining must be/,
    );
  });
});
