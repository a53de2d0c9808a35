// Character codes and classes of the tolerant JSON reader (`tolerant-json-parser.ts`), compared with
// `charCodeAt` so a scan allocates nothing.

export const SPACE = 32;
export const TAB = 9;
export const LINE_FEED = 10;
export const CARRIAGE_RETURN = 13;
export const QUOTE = 34;
export const APOSTROPHE = 39;
export const COMMA = 44;
export const MINUS = 45;
export const DOT = 46;
export const SLASH = 47;
export const ZERO = 48;
export const NINE = 57;
export const COLON = 58;
export const BACKSLASH = 92;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACKET = 93;
export const OPEN_BRACE = 123;
export const CLOSE_BRACE = 125;
export const LEFT_DOUBLE_CURLY = 0x201c;
export const RIGHT_DOUBLE_CURLY = 0x201d;
export const LEFT_SINGLE_CURLY = 0x2018;
export const RIGHT_SINGLE_CURLY = 0x2019;

/** `0` to `9`. */
export function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

/** A letter, `_` or `$`: what an unquoted key or a literal starts with. */
export function isIdentifierStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;
}

/** A letter, digit, `_` or `$`. */
export function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || isDigit(code);
}

/** A hexadecimal digit, either case. */
export function isHex(code: number): boolean {
  return isDigit(code) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** A quote the tolerant reader opens a string with: `"`, `'` or a curly quote. */
export function isQuote(code: number): boolean {
  return (
    code === QUOTE ||
    code === APOSTROPHE ||
    code === LEFT_DOUBLE_CURLY ||
    code === RIGHT_DOUBLE_CURLY ||
    code === LEFT_SINGLE_CURLY ||
    code === RIGHT_SINGLE_CURLY
  );
}
