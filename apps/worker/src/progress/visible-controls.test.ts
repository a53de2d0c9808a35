import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { visibleControls } from './visible-controls';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ACTED_ON = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('control characters made visible', () => {
  it('shows escape sequences, an OSC 52 clipboard write, a screen clear and a carriage return as what they are', () => {
    expect(visibleControls('copy\u001b]52;c;cm0gLXJmIH4=\u0007 done')).toBe('copy␛]52;c;cm0gLXJmIH4=␇ done');
    expect(visibleControls('\u001b[2J\u001b[3J\u001b[H clean')).toBe('␛[2J␛[3J␛[H clean');
    expect(visibleControls('rm -rf ~\rls -l   ')).toBe('rm -rf ~␍ls -l   ');
    expect(visibleControls('\u009b31mred\u009d0;title\u009c')).toBe('␛[31mred␛]0;title␛\\');
    expect(visibleControls('a\u0000b\u007fc\u0008')).toBe('a␀b␡c␈');
  });

  it('keeps tabs, line feeds and every printable character, emoji and CJK included', () => {
    const text = 'Line one\n\tindented: 東京 🚀 naïve — “quoted” ␛ literal\n';
    expect(visibleControls(text)).toBe(text);
  });

  it('leaves no character a terminal acts on, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const shown = visibleControls(text);
        return !ACTED_ON.test(shown) && (ACTED_ON.test(text) || shown === text);
      }),
    );
  });
});
