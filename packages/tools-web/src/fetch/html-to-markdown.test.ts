import { describe, expect, it } from 'vitest';
import { expectAgreesWithSpecification } from '../__fixtures__/agrees-with-specification';
import { htmlToMarkdown, withExplicitBody } from './html-to-markdown';

describe('htmlToMarkdown', () => {
  it('converts fragments and body-less documents, not only full pages', () => {
    for (const html of [
      '<p>Hello <b>there</b></p>',
      '<!doctype html><title>T</title><p>Hello <b>there</b></p>',
      '<html><head><title>T</title></head><p>Hello <b>there</b></p></html>',
    ]) {
      expect(htmlToMarkdown(html, 'https://example.com/').markdown).toContain('Hello **there**');
    }
  });

  it('keeps the main article and drops navigation, scripts and inline data images', () => {
    const paragraphs = Array.from(
      { length: 5 },
      (_, index) =>
        `<p>Paragraph ${index} has enough words in it to look like the body of a real article about something.</p>`,
    ).join('');
    const page = htmlToMarkdown(
      `<html><head><title>Doc</title></head><body><nav><a href="/x">Nav link</a></nav><article><h1>Heading</h1>${paragraphs}<img src="data:image/png;base64,AAAA" alt="dot"><img src="/a.png" alt="A"><a href="javascript:alert(1)">click</a></article><script>evil()</script></body></html>`,
      'https://example.com/dir/page',
    );
    expect(page.extracted).toBe(true);
    expect(page.title).toBe('Doc');
    expect(page.markdown).toContain('Paragraph 4 has enough words');
    expect(page.markdown).toContain('![A](https://example.com/a.png)');
    expect(page.markdown).toContain('[image: dot]');
    expect(page.markdown).not.toContain('base64');
    expect(page.markdown).not.toContain('javascript:');
    expect(page.markdown).not.toContain('evil()');
  });

  it('gives empty Markdown for an empty document', () => {
    expect(htmlToMarkdown('', 'https://example.com/').markdown).toBe('');
  });
});

describe('withExplicitBody', () => {
  // The regular expressions it replaced, kept as the specification (fine on short inputs; seconds
  // on a 240 KB page of `<head>` or `<!doctype` without a close).
  function specification(html: string): string {
    if (/<body[\s>]/i.test(html)) return html;
    const head = /<head[\s>][\s\S]*?<\/head>/i.exec(html)?.[0] ?? '';
    const rest = html
      .replace(head, '')
      .replace(/<!doctype[^>]*>/i, '')
      .replace(/<\/?html[^>]*>/gi, '');
    return `<!doctype html><html>${head}<body>${rest}</body></html>`;
  }

  it('agrees with the regular expressions it replaces', () => {
    const pieces = [
      '<head>',
      '<HEAD ',
      '</head>',
      '</HEAD>',
      '<!doctype',
      '<!DOCTYPE html',
      '<html',
      '</html',
      '<HTML lang="en"',
      '<body',
      '<body>',
      '>',
      '<',
      '/',
      ' ',
      'text',
      '<title>T</title>',
      '<p>',
    ];
    expectAgreesWithSpecification(withExplicitBody, specification, { pieces, maxPieces: 16, numRuns: 3000 });
  });

  it.each([
    ['<head>', '<head>'],
    ['<!doctype', '<!doctype'],
    ['<html', '<html'],
  ])('is linear on 5 MB of %s without a close', (_, unit) => {
    const html = unit.repeat(Math.ceil((5 * 1024 * 1024) / unit.length));
    const started = performance.now();
    expect(withExplicitBody(html).length).toBeGreaterThan(0);
    // Generous: it tells a hang (the old expressions needed hours here) from a pass.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
