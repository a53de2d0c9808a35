import { describe, expect, it } from 'vitest';
import { isOpenAIEndpoint } from './is-openai-endpoint';

describe('isOpenAIEndpoint', () => {
  it("recognises OpenAI's API, and the SDK default when no base URL is set", () => {
    expect(isOpenAIEndpoint(undefined)).toBe(true);
    expect(isOpenAIEndpoint('https://api.openai.com/v1')).toBe(true);
  });

  it('refuses any other host, a look-alike and a URL that does not parse', () => {
    expect(isOpenAIEndpoint('http://127.0.0.1:8080/v1')).toBe(false);
    expect(isOpenAIEndpoint('https://api.openai.com.example.net/v1')).toBe(false);
    expect(isOpenAIEndpoint('not a url')).toBe(false);
  });
});
