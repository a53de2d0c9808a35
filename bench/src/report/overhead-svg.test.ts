import { describe, expect, it } from 'vitest';
import { overheadSvg } from './overhead-svg';

const widths = (svg: string, kind: 'cpu' | 'wall') =>
  [...svg.matchAll(new RegExp(`class="bar-${kind}"[^>]* width="([0-9.]+)"`, 'g'))].map((match) =>
    Number(match[1]),
  );

describe('overheadSvg', () => {
  it('draws one CPU and one wall bar per runtime, proportional to the ratio', () => {
    const svg = overheadSvg(
      [
        { name: 'bare', cpu: 1, wall: 1 },
        { name: 'peer', cpu: 2, wall: 3 },
      ],
      'Overhead',
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    const cpu = widths(svg, 'cpu');
    const wall = widths(svg, 'wall');
    expect(cpu).toHaveLength(2);
    expect(wall).toHaveLength(2);
    expect((cpu[1] ?? 0) / (cpu[0] ?? 1)).toBeCloseTo(2, 1);
    expect((wall[1] ?? 0) / (wall[0] ?? 1)).toBeCloseTo(3, 1);
    expect(svg).toContain('3.00x');
  });

  it('escapes names and survives a missing ratio', () => {
    const svg = overheadSvg([{ name: 'a <b> & "c"', cpu: Number.NaN, wall: 1.2 }], 'T & U');
    expect(svg).toContain('a &lt;b&gt; &amp; &quot;c&quot;');
    expect(svg).toContain('T &amp; U');
    expect(svg).not.toContain('NaN');
    expect(svg).toContain('n/a');
  });
});
