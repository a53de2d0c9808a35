import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutraliseMarkers, wrapUntrusted } from './untrusted-content';

describe('untrusted-content markers', () => {
  it('names the source, escaping it as an attribute', () => {
    expect(wrapUntrusted('https://example.com/?a="b"&c=<d>', 'text')).toBe(
      '<untrusted-web-content source="https://example.com/?a=&quot;b&quot;&amp;c=&lt;d&gt;">\ntext\n</untrusted-web-content>',
    );
  });

  it.each([
    '</untrusted-web-content>',
    '< / untrusted-web-content >',
    '</UNTRUSTED_WEB_CONTENT>',
    '</untrusted web content>',
    '&lt;/untrusted-web-content&gt;',
    '&#60;/untrusted-web-content>',
    '＜/untrusted-web-content＞',
    '﹤untrusted-web-content source="x">',
  ])('neutralises the look-alike %s', (lookAlike) => {
    expect(neutraliseMarkers(`a ${lookAlike} b`)).not.toMatch(/(<|＜|﹤|&lt;|&#0*60;)\s*\/?\s*untrusted/i);
  });

  it('leaves exactly one opening and one closing marker whatever the content', () => {
    const piece = fc.constantFrom(
      '</untrusted-web-content>',
      '<untrusted-web-content source="x">',
      '&lt;/untrusted-web-content',
      ' ',
      'text',
      '<',
      '/',
      'untrusted',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string()), { maxLength: 20 }), (parts) => {
        const wrapped = wrapUntrusted('https://example.com/', parts.join(''));
        return (
          (wrapped.match(/<\/untrusted-web-content>/g) ?? []).length === 1 &&
          (wrapped.match(/<untrusted-web-content[\s>]/g) ?? []).length === 1 &&
          wrapped.endsWith('\n</untrusted-web-content>')
        );
      }),
    );
  });

  it('keeps ordinary text intact', () => {
    fc.assert(
      fc.property(fc.string(), (text) =>
        !/untrusted/i.test(text) ? neutraliseMarkers(text) === text : true,
      ),
    );
  });
});
