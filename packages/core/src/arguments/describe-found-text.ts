import { isDigit, isIdentifierStart } from './json-characters';

// The ladder's refusal messages say where and what kind of thing is wrong, never what the model
// wrote: they go back into the transcript (and the turn's record), and the model has its own call
// to look at.

/** A word of the input by its length: `a word of 11 characters`. */
export function describeWord(word: string): string {
  return `a word of ${word.length} ${word.length === 1 ? 'character' : 'characters'}`;
}

/** One character by its kind; JSON's own punctuation by itself, since that is syntax, not content. */
export function describeCharacter(codePoint: number): string {
  if ('{}[]:,"\''.includes(String.fromCodePoint(codePoint))) {
    return JSON.stringify(String.fromCodePoint(codePoint));
  }
  if (isDigit(codePoint)) return 'a digit';
  if (isIdentifierStart(codePoint)) return 'a letter';
  if (codePoint < 32 || codePoint === 127) return 'a control character';
  if (codePoint === 32 || codePoint === 160) return 'a space';
  return codePoint < 128
    ? `the symbol ${JSON.stringify(String.fromCodePoint(codePoint))}`
    : 'a non-ASCII character';
}
