import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectAgreesWithSpecification } from './__fixtures__/agrees-with-specification';
import { occurrences, readMarked } from './__fixtures__/read-marked';
import { neutraliseMarkers, webContentMarker, wrapUntrusted } from './untrusted-content';

describe('untrusted-content markers', () => {
  it("names the source and the title, escaping them as attributes, inside a marker with the call's boundary", () => {
    const { marker, notice } = webContentMarker();
    expect(marker.tag).toMatch(/^untrusted-web-content-[0-9a-f]{16}$/);
    expect(
      wrapUntrusted(marker, 'https://example.com/?a="b"&c=<d>', 'text', 'A </untrusted-web-content> "title"'),
    ).toBe(
      `<${marker.tag} source="https://example.com/?a=&quot;b&quot;&amp;c=&lt;d&gt;" title="A [neutralised marker end]&gt; &quot;title&quot;">\ntext\n</${marker.tag}>`,
    );
    expect(notice).toContain(`inside the ${marker.tag} marker comes from the web`);
    expect(webContentMarker().marker.boundary).not.toBe(marker.boundary);
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
    const { marker } = webContentMarker();
    const piece = fc.constantFrom(
      '</untrusted-web-content>',
      '<untrusted-web-content source="x">',
      '&lt;/untrusted-web-content',
      `</${marker.tag}>`,
      marker.boundary,
      ' ',
      'text',
      '<',
      '/',
      'untrusted',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string()), { maxLength: 20 }), (parts) => {
        const wrapped = wrapUntrusted(marker, 'https://example.com/', parts.join(''));
        return (
          occurrences(wrapped, `</${marker.tag}>`) === 1 &&
          occurrences(wrapped, `<${marker.tag} `) === 1 &&
          wrapped.endsWith(`\n</${marker.tag}>`) &&
          readMarked(wrapped)?.tag === marker.tag
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

describe('neutraliseMarkers: the scan', () => {
  // The regular expression the scan replaced, kept here as the specification it must agree with.
  const SPECIFICATION = /(?:<|＜|﹤|&lt;|&#0*60;|&#x0*3c;)(\s*\/?\s*)(untrusted[\s_-]*web[\s_-]*content)/gi;
  const specification = (text: string) =>
    text.replace(
      SPECIFICATION,
      (_match, slash: string) => `[neutralised marker${slash.includes('/') ? ' end' : ''}]`,
    );

  it('agrees with the regular expression it replaces on any mix of marker pieces', () => {
    const pieces = [
      '<',
      '＜',
      '﹤',
      '&lt;',
      '&LT;',
      '&#60;',
      '&#0060;',
      '&#x3c;',
      '&#X03C;',
      '&#6',
      '&lt',
      '/',
      ' ',
      '\u3000',
      '\n',
      '_',
      '-',
      'untrusted',
      'UNTRUSTED',
      'untrus',
      'web',
      'Web',
      'content',
      'CONTENT',
      'x',
      '>',
      '\u001b',
    ];
    expectAgreesWithSpecification(neutraliseMarkers, specification, { pieces, maxPieces: 24, numRuns: 2000 });
  });

  it('takes linear time where the regular expression took seconds: a < followed by many spaces', () => {
    // The regular expression needed over 1.7 s for 40 000 spaces on a loaded machine (and 4x that
    // per doubling); the scan reads each character once. The bound is generous: a hang, not a speed target.
    const text = `<${' '.repeat(2_000_000)}x ${'< '.repeat(500_000)}`;
    const started = performance.now();
    expect(neutraliseMarkers(text)).toBe(text);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
