// ASCII whitespace, which `atob` (the forgiving-base64 decode the MCP SDK validates with) skips.
const WHITESPACE = /[\t\n\f\r ]/;

function isWhitespace(code: number): boolean {
  return code === 9 || code === 10 || code === 12 || code === 13 || code === 32;
}

/**
 * The number of bytes a base64 string decodes to, without decoding it: a server's image may be
 * megabytes, and only its size is needed for a placeholder. Whitespace is skipped and up to two
 * trailing `=` are padding, as in `atob`. Linear in the length (one scan only when whitespace is present).
 *
 * Contract: exact for any string `atob` accepts (the MCP SDK refuses other base64 before this runs).
 *
 * @example
 * decodedBase64Length('AAEC'); // 3
 * decodedBase64Length('AAE='); // 2
 * decodedBase64Length('AA=='); // 1
 */
export function decodedBase64Length(base64: string): number {
  let characters = base64.length;
  if (WHITESPACE.test(base64)) {
    for (let index = 0; index < base64.length; index += 1) {
      if (isWhitespace(base64.charCodeAt(index))) characters -= 1;
    }
  }
  let padding = 0;
  for (let index = base64.length - 1; index >= 0 && padding < 2; index -= 1) {
    const code = base64.charCodeAt(index);
    if (isWhitespace(code)) continue;
    if (code !== 61) break;
    padding += 1;
  }
  return Math.floor(((characters - padding) * 3) / 4);
}
