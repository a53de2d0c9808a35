/**
 * Whether a UTF-16 code unit is one of the characters JavaScript's `\s` matches (all of them are in
 * the BMP, so a code unit suffices): for scanners that replace a regular expression with a linear
 * loop over untrusted text and must agree with it exactly.
 */
export function isJsSpace(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
