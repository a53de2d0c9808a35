import type { ArgumentRepair } from './argument-ids';
import { MAX_TOOL_ARGUMENT_DEPTH } from './argument-limits';
import { deepEqual } from './deep-equal';
import { describeCharacter, describeWord } from './describe-found-text';
import {
  BACKSLASH,
  CARRIAGE_RETURN,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  DOT,
  isDigit,
  isIdentifierPart,
  isIdentifierStart,
  isQuote,
  LINE_FEED,
  MINUS,
  OPEN_BRACE,
  OPEN_BRACKET,
  SLASH,
  SPACE,
  TAB,
  ZERO,
} from './json-characters';
import { describePointer, toJSONPointer } from './json-pointer';
import { LadderRefusal } from './ladder-refusal';
import { readTolerantString, type StringReaderHost } from './tolerant-json-string';

/** How the tolerant parser treats the end of the input. */
export interface TolerantParseOptions {
  /** Close an unterminated root object that ends right after a complete member. */
  allowRootClose: boolean;
  /** The model stopped at its output token limit: say so when the input ends early. */
  truncatedByLimit: boolean;
}

/** A value the tolerant parser read, and the repairs that reading needed. */
export interface TolerantParseResult {
  /** The root value (any JSON value; the ladder checks that it is an object). */
  value: unknown;
  /** Repair step ids in the order they were first applied. */
  repairs: Set<ArgumentRepair>;
}

const OPENER = /[[{]/g;
/** Beyond this many concatenated copies the input is refused without comparing them. */
const MAX_CONCATENATED_OBJECTS = 16;
const LITERALS = ['true', 'false', 'null', 'True', 'False', 'None'];

/** Assigns a member the way `JSON.parse` does: `__proto__` becomes an own property, not the prototype. */
function defineMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/**
 * A string-aware recursive-descent reader for almost-JSON. It knows where every string starts and
 * ends and changes string content only to keep raw control characters and (unambiguous) invalid
 * escapes; everything else it cannot read unambiguously is a `LadderRefusal`. Recursion is bounded
 * by `MAX_TOOL_ARGUMENT_DEPTH`.
 */
class TolerantParser implements StringReaderHost {
  position = 0;
  private depth = 0;
  private rootCloseAllowed: boolean;
  private readonly path: (string | number)[] = [];
  readonly repairs = new Set<ArgumentRepair>();

  constructor(
    readonly text: string,
    private readonly options: TolerantParseOptions,
  ) {
    this.rootCloseAllowed = options.allowRootClose && !options.truncatedByLimit;
  }

  parseDocument(): unknown {
    const { text } = this;
    this.skipSpace();
    if (this.atEnd()) {
      throw new LadderRefusal('invalid-json', 'No JSON object was found in the arguments.');
    }
    const first = text.charCodeAt(this.position);
    if (isIdentifierStart(first)) {
      const word = this.peekWord();
      if (!LITERALS.includes(word) && word !== 'NaN' && word !== 'Infinity' && word !== 'undefined') {
        if (text.indexOf('{', this.position) !== -1) {
          throw new LadderRefusal(
            'prose-before-object',
            `The arguments start with text (${describeWord(word)} at character ${this.position + 1}) before the JSON object at character ${text.indexOf('{', this.position) + 1}. Send only the JSON object, with nothing before it.`,
          );
        }
        throw new LadderRefusal(
          'invalid-json',
          `The arguments are not JSON (they start with ${describeWord(word)}, and hold no "{"). Send a JSON object.`,
        );
      }
    } else if (
      first !== OPEN_BRACE &&
      first !== OPEN_BRACKET &&
      !isDigit(first) &&
      !isQuote(first) &&
      !(first === MINUS && /[0-9I]/.test(text.charAt(this.position + 1)))
    ) {
      if (text.indexOf('{', this.position) !== -1) {
        throw new LadderRefusal(
          'prose-before-object',
          'The arguments have text before the JSON object. Send only the JSON object, with nothing before it.',
        );
      }
      this.unexpected('a JSON object');
    }

    const values = [this.parseValue()];
    for (;;) {
      this.skipSpace();
      if (this.atEnd()) break;
      const restStart = this.position;
      OPENER.lastIndex = restStart;
      if (!OPENER.test(text)) {
        // Prose, a `;` or stray closers after a complete root: they carry no arguments.
        this.repairs.add('drop-trailing-text');
        this.position = text.length;
        break;
      }
      while (!this.atEnd()) {
        const code = text.charCodeAt(this.position);
        if (code === 59 || code === COMMA) this.position += 1;
        else if (code === SPACE || code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN) {
          this.position += 1;
        } else break;
      }
      const rootIsObject = typeof values[0] === 'object' && values[0] !== null && !Array.isArray(values[0]);
      if (rootIsObject && text.charCodeAt(this.position) === OPEN_BRACE) {
        if (values.length === MAX_CONCATENATED_OBJECTS) {
          throw new LadderRefusal(
            'concatenated-objects',
            `More than ${MAX_CONCATENATED_OBJECTS} argument objects were concatenated; call the tool once per object.`,
          );
        }
        // A later object is never closed for the model: concatenation plus truncation is too much guessing.
        this.rootCloseAllowed = false;
        values.push(this.parseValue());
        continue;
      }
      throw new LadderRefusal(
        'trailing-content',
        `After the arguments object there is more text holding "{" or "[" (from character ${restStart + 1} of ${text.length}). Send exactly one JSON object and nothing after it.`,
      );
    }
    if (values.length > 1) {
      if (!values.every((value) => deepEqual(value, values[0]))) {
        throw new LadderRefusal(
          'concatenated-objects',
          `${values.length} argument objects were concatenated; call the tool once per object.`,
        );
      }
      this.repairs.add('deduplicate-concatenated');
    }
    return values[0];
  }

  private atEnd(): boolean {
    return this.position >= this.text.length;
  }

  where(): string {
    return this.path.length === 0 ? '' : ` at ${describePointer(toJSONPointer(this.path))}`;
  }

  truncated(where: string): never {
    if (this.options.truncatedByLimit) {
      throw new LadderRefusal(
        'truncated',
        `The arguments were cut off at the output token limit (they end ${where}). Nothing was run. Send the call again with shorter arguments, e.g. split large content over several calls.`,
      );
    }
    throw new LadderRefusal(
      'truncated',
      `The arguments end ${where}, so they look cut off. Nothing was run. Send the complete arguments again.`,
    );
  }

  private unexpected(expected: string): never {
    const found = this.atEnd()
      ? 'the end of the input'
      : describeCharacter(this.text.codePointAt(this.position) ?? 0);
    throw new LadderRefusal(
      'invalid-json',
      `Invalid JSON at character ${this.position + 1}${this.where()}: expected ${expected}, found ${found}.`,
    );
  }

  private skipSpace(): void {
    const { text } = this;
    for (;;) {
      const code = text.charCodeAt(this.position);
      if (code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB) {
        this.position += 1;
      } else if (code === SLASH) {
        const next = text.charCodeAt(this.position + 1);
        if (next === SLASH) {
          const end = text.indexOf('\n', this.position + 2);
          this.position = end === -1 ? text.length : end + 1;
        } else if (next === 42) {
          const end = text.indexOf('*/', this.position + 2);
          if (end === -1) this.truncated('inside a /* comment */');
          this.position = end + 2;
        } else return;
        this.repairs.add('strip-comments');
      } else if (code === BACKSLASH) {
        const next = text[this.position + 1];
        if (next !== 'n' && next !== 'r' && next !== 't') return;
        // A two-character `\n` between tokens: the model escaped the layout of its JSON.
        this.position += 2;
        this.repairs.add('escaped-whitespace-outside-strings');
      } else return;
    }
  }

  private peekWord(): string {
    let end = this.position;
    while (end < this.text.length && isIdentifierPart(this.text.charCodeAt(end))) end += 1;
    return this.text.slice(this.position, end);
  }

  private parseValue(): unknown {
    const code = this.text.charCodeAt(this.position);
    if (code === OPEN_BRACE) return this.parseObject();
    if (code === OPEN_BRACKET) return this.parseArray();
    if (isQuote(code)) return readTolerantString(this, false);
    if (code === MINUS || isDigit(code)) return this.parseNumber();
    if (isIdentifierStart(code)) return this.parseWord();
    if (code === COMMA) {
      throw new LadderRefusal(
        'empty-element',
        `An empty element (",,") at character ${this.position + 1}${this.where()}: remove the extra comma or put a value there.`,
      );
    }
    return this.unexpected('a value');
  }

  private parseWord(): unknown {
    const start = this.position;
    const word = this.peekWord();
    this.position += word.length;
    switch (word) {
      case 'true':
        return true;
      case 'false':
        return false;
      case 'null':
        return null;
      case 'True':
        this.repairs.add('python-literals');
        return true;
      case 'False':
        this.repairs.add('python-literals');
        return false;
      case 'None':
        this.repairs.add('python-literals');
        return null;
      case 'NaN':
      case 'Infinity':
      case 'undefined':
        throw new LadderRefusal(
          'non-json-literal',
          `${word}${this.where()} is not a JSON value: use a number, null or a string.`,
        );
    }
    if (this.atEnd() && LITERALS.some((literal) => literal.startsWith(word)))
      this.truncated('inside a value');
    throw new LadderRefusal(
      'invalid-json',
      `Unquoted text (${describeWord(word)}) at character ${start + 1}${this.where()} is not a JSON value: put strings in double quotes.`,
    );
  }

  private parseNumber(): number {
    const { text } = this;
    const start = this.position;
    if (text.charCodeAt(this.position) === MINUS) {
      this.position += 1;
      if (text.startsWith('Infinity', this.position)) {
        throw new LadderRefusal(
          'non-json-literal',
          `-Infinity${this.where()} is not a JSON value: use a number, null or a string.`,
        );
      }
    }
    const first = text.charCodeAt(this.position);
    if (first === ZERO) {
      this.position += 1;
      if (isDigit(text.charCodeAt(this.position))) {
        let end = this.position;
        while (isDigit(text.charCodeAt(end))) end += 1;
        throw new LadderRefusal(
          'leading-zero-number',
          `The number at character ${start + 1}${this.where()} (${end - start} characters) has a leading zero, which JSON does not allow: write it without the zero, or as a string if the zeros matter.`,
        );
      }
    } else if (isDigit(first)) {
      while (isDigit(text.charCodeAt(this.position))) this.position += 1;
    } else if (this.atEnd()) {
      this.truncated('inside a number');
    } else {
      this.unexpected('a digit');
    }
    if (text.charCodeAt(this.position) === DOT) {
      this.position += 1;
      this.readDigits();
    }
    const exponent = text.charCodeAt(this.position);
    if (exponent === 101 || exponent === 69) {
      this.position += 1;
      const sign = text.charCodeAt(this.position);
      if (sign === 43 || sign === MINUS) this.position += 1;
      this.readDigits();
    }
    // A number touching the end may have lost digits: only a root scalar (refused later anyway) may.
    if (this.atEnd() && this.depth > 0) this.truncated('inside a number');
    const literal = text.slice(start, this.position);
    const value = Number(literal);
    if (!Number.isFinite(value)) {
      // `1e999` reads as Infinity, which no schema check expects and JSON cannot carry on: it would
      // reach the tool as Infinity and be stored or sent on as `null`.
      const pointer = toJSONPointer(this.path);
      throw new LadderRefusal(
        'non-finite-number',
        `number is not finite (${literal.length > 40 ? `${literal.slice(0, 40)}...` : literal} overflows): JSON numbers must lie within ±1.7976931348623157e308. Send a smaller number, or the value as a string if the tool takes one.`,
        pointer,
      );
    }
    return value;
  }

  private readDigits(): void {
    if (!isDigit(this.text.charCodeAt(this.position))) {
      if (this.atEnd()) this.truncated('inside a number');
      this.unexpected('a digit');
    }
    while (isDigit(this.text.charCodeAt(this.position))) this.position += 1;
  }

  private parseKey(): string {
    const { text } = this;
    const code = text.charCodeAt(this.position);
    if (isQuote(code)) return readTolerantString(this, true);
    if (isIdentifierStart(code)) {
      const word = this.peekWord();
      this.position += word.length;
      if (this.atEnd()) this.truncated('inside a key');
      this.repairs.add('unquoted-keys');
      return word;
    }
    return this.unexpected('a key in double quotes');
  }

  private enter(): void {
    this.depth += 1;
    if (this.depth > MAX_TOOL_ARGUMENT_DEPTH) {
      throw new LadderRefusal(
        'too-deep',
        `The arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels${this.where()}. Send a flatter object.`,
      );
    }
  }

  /**
   * Enters the container whose opening bracket is at the current position and steps over it and the
   * space after it; true when `close` follows at once (the empty container, left again).
   */
  private openIsEmpty(close: number): boolean {
    this.enter();
    this.position += 1;
    this.skipSpace();
    if (this.text.charCodeAt(this.position) !== close) return false;
    this.position += 1;
    this.depth -= 1;
    return true;
  }

  /**
   * After a member or an element: steps over a `,` and the space after it (true: another value
   * follows) or over the container's closing `close` (false), and refuses anything else.
   */
  private skipSeparator(close: number, closeText: '}' | ']'): boolean {
    const next = this.text.charCodeAt(this.position);
    if (next === COMMA) {
      this.position += 1;
      this.skipSpace();
      return true;
    }
    if (next !== close) this.unexpected(`"," or "${closeText}" after a value`);
    this.position += 1;
    return false;
  }

  private parseObject(): Record<string, unknown> {
    const { text } = this;
    const object: Record<string, unknown> = {};
    if (this.openIsEmpty(CLOSE_BRACE)) return object;
    let members = 0;
    for (;;) {
      if (this.atEnd()) this.truncated(members === 0 ? 'right after "{"' : 'right after ","');
      const code = text.charCodeAt(this.position);
      if (code === COMMA) {
        throw new LadderRefusal(
          'empty-element',
          `An empty member (${members === 0 ? '"{,"' : '",,"'}) at character ${this.position + 1}${this.where()}: remove the extra comma.`,
        );
      }
      if (code === CLOSE_BRACE) {
        this.repairs.add('trailing-comma');
        this.position += 1;
        break;
      }
      const keyStart = this.position;
      const key = this.parseKey();
      if (Object.hasOwn(object, key)) {
        throw new LadderRefusal(
          'duplicate-key',
          `The key ${describePointer(toJSONPointer([...this.path, key]))} appears more than once in its object (again at character ${keyStart + 1}). Send each key once.`,
        );
      }
      this.skipSpace();
      if (this.atEnd())
        this.truncated(`after the key ${describePointer(toJSONPointer([...this.path, key]))}`);
      if (text.charCodeAt(this.position) !== COLON) this.unexpected('":" after the key');
      this.position += 1;
      this.skipSpace();
      if (this.atEnd())
        this.truncated(
          `right after the key ${describePointer(toJSONPointer([...this.path, key]))} and its ":"`,
        );
      this.path.push(key);
      const value = this.parseValue();
      this.path.pop();
      defineMember(object, key, value);
      members += 1;
      this.skipSpace();
      if (this.atEnd()) {
        if (this.depth === 1 && this.rootCloseAllowed) {
          // The input ends right after a complete member of the root: only the root's `}` is missing.
          this.repairs.add('close-truncated-root');
          this.depth -= 1;
          return object;
        }
        this.truncated(this.depth === 1 ? 'before the closing "}"' : 'inside an open nested object');
      }
      if (!this.skipSeparator(CLOSE_BRACE, '}')) break;
    }
    this.depth -= 1;
    return object;
  }

  private parseArray(): unknown[] {
    const { text } = this;
    const array: unknown[] = [];
    if (this.openIsEmpty(CLOSE_BRACKET)) return array;
    for (;;) {
      if (this.atEnd()) this.truncated('inside an open array');
      const code = text.charCodeAt(this.position);
      if (code === CLOSE_BRACKET) {
        this.repairs.add('trailing-comma');
        this.position += 1;
        break;
      }
      this.path.push(array.length);
      array.push(this.parseValue());
      this.path.pop();
      this.skipSpace();
      if (this.atEnd()) this.truncated('inside an open array');
      if (!this.skipSeparator(CLOSE_BRACKET, ']')) break;
    }
    this.depth -= 1;
    return array;
  }
}

/**
 * Reads almost-JSON text (see the argument ladder's step 6 to 9) into a value.
 *
 * Contract: throws `LadderRefusal` for anything it will not read; never throws anything else.
 */
export function parseTolerantJSON(text: string, options: TolerantParseOptions): TolerantParseResult {
  const parser = new TolerantParser(text, options);
  const value = parser.parseDocument();
  return { value, repairs: parser.repairs };
}
