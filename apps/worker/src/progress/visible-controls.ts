// Every character a terminal acts on rather than prints: C0 controls but tab and line feed, DEL, and
// the C1 controls (U+0080 to U+009F; some terminals take U+009B as CSI, U+009D as OSC). One class,
// no quantifier: linear in the text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const ESCAPE_PICTURE = '\u241b';
const DELETE_PICTURE = '\u2421';

function picture(character: string): string {
  const code = character.charCodeAt(0);
  if (code === 0x7f) return DELETE_PICTURE;
  // C1 control U+0080 + n is the 7-bit ESC followed by U+0040 + n (U+009B is ESC [): shown that way.
  if (code >= 0x80) return `${ESCAPE_PICTURE}${String.fromCharCode(code - 0x40)}`;
  // U+2400 + n is the Control Picture of C0 control n: ␛ for ESC, ␇ for BEL, ␍ for CR, ␈ for BS.
  return String.fromCharCode(0x2400 + code);
}

/**
 * Text a model wrote (or a tool read from a page or a file it wrote) made safe to print on the
 * operator's terminal: every control character a terminal would act on is replaced by a visible
 * stand-in, so an escape sequence, an OSC 52 clipboard write (`ESC ] 52 ; c ; ... BEL`), a screen
 * clear or a carriage return that overwrites a line shows as what it is (`␛]52;c;...␇`, `␛[2J`, `␍`)
 * instead of acting. Tab and line feed stay; everything else is unchanged.
 *
 * Contract: pure and linear; the result holds no C0 control but tab and line feed, no DEL and no C1
 * control, and equals the input when it held none.
 *
 * @example
 * visibleControls('hi\u001b]52;c;cm0gLXJmIH4=\u0007 there'); // 'hi␛]52;c;cm0gLXJmIH4=␇ there'
 */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, picture);
}
