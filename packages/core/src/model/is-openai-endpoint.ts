/**
 * True when a base URL points at OpenAI's own API (`api.openai.com`), where native Tool Search is
 * offered and an API key is required; `undefined` means the SDK's default, which is that API.
 *
 * Contract: never throws; a URL that does not parse is not OpenAI's.
 */
export function isOpenAIEndpoint(baseURL: string | undefined): boolean {
  if (baseURL === undefined) return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
