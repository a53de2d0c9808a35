import { describe, expect, it } from 'vitest';
import { htmlToText } from './html-to-text';

describe('htmlToText', () => {
  it('reads the text of a page: title, blocks on their own lines, entities decoded, no scripts or styles', () => {
    const page = htmlToText(
      `<!doctype html><html><head><title> Rivers &amp; Lakes </title><style>p { color: red }</style>
      <script>var secret = "<p>not text</p>";</script></head><body><!-- a <p>comment</p> -->
      <h1>Rivers</h1><p>The   Danube flows
      east.</p><p>Tom &amp; Jerry &lt;3 &eacute;t&eacute; &#x1F600;</p><ul><li>one</li><li>two</li></ul>
      <table><tr><td>a</td><td>b</td></tr></table><textarea>typed</textarea><svg><title>icon</title></svg>
      <img src="x.png" alt="picture"><a href="/x" title='a > b'>link</a> 3 < 4 and 5 > 4</body></html>`,
    );
    expect(page.title).toBe('Rivers & Lakes');
    expect(page.text).toBe(
      'Rivers\n\nThe Danube flows east.\n\nTom & Jerry <3 été 😀\n\none\ntwo\na b\nlink 3 < 4 and 5 > 4',
    );
  });

  it('keeps the text after a self-closing svg and drops an unclosed quoted attribute to the end, as browsers do', () => {
    expect(htmlToText('<p>a<svg/>b</p>').text).toBe('ab');
    expect(htmlToText('<p>before<a title="never closed>after</p>').text).toBe('before');
  });

  it('gives empty text for markup with no text, and no title when there is none', () => {
    expect(htmlToText('')).toEqual({ text: '' });
    expect(htmlToText('<head>'.repeat(10))).toEqual({ text: '' });
  });

  const FIVE_MB = 5 * 1024 * 1024;
  const repeat = (unit: string) => unit.repeat(Math.ceil(FIVE_MB / unit.length));
  it.each([
    ['<head> repeated', repeat('<head>')],
    ['<!doctype repeated', repeat('<!doctype')],
    ['<html without >', repeat('<html')],
    ['< and spaces', `<${' '.repeat(FIVE_MB)}`],
    ['< and spaces, repeated', repeat(`<${' '.repeat(99)}`)],
    ['unclosed <div>s', repeat('<div>')],
    ['unclosed <script>s', repeat('<script>')],
    ['unclosed <title>s', repeat('<title>')],
    ['unclosed comments', repeat('<!--')],
    ['entities without ;', repeat('&amp')],
    ['one tag with many attributes', `<p ${repeat(' a="1"')}>x`],
    ['one text node', `<p>${repeat('word ')}`],
  ])('reads 5 MB of %s in linear time', (_, html) => {
    // Minutes for a parser with a stack of open elements; one pass here. The bound is generous: it
    // tells a hang from a pass, it is not a speed target. CPU time, so waiting for a core on a loaded
    // machine does not count.
    const started = process.cpuUsage();
    const page = htmlToText(html);
    expect(page.text.length).toBeLessThanOrEqual(html.length);
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(10_000);
  });
});
