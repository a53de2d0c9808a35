/** One bar group of the overhead chart. */
export interface OverheadBar {
  /** Runtime name (the row label). */
  name: string;
  /** Ratio of CPU time per turn to the bare loop. */
  cpu: number;
  /** Ratio of wall time per turn to the bare loop. */
  wall: number;
}

const label = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a');

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A horizontal bar chart (SVG text, no dependencies) of each runtime's per-turn CPU and wall time
 * as a ratio to the bare openai SDK loop, with a dashed line at 1.0x.
 */
export function overheadSvg(bars: readonly OverheadBar[], title: string): string {
  const labelWidth = 180;
  const plotWidth = 460;
  const rowHeight = 44;
  const top = 48;
  const height = top + bars.length * rowHeight + 40;
  const width = labelWidth + plotWidth + 90;
  const finite = bars.flatMap((bar) => [bar.cpu, bar.wall]).filter((value) => Number.isFinite(value));
  const max = Math.max(1.5, Math.ceil(Math.max(1, ...finite) * 2) / 2);
  const x = (ratio: number) =>
    labelWidth + (Math.max(0, Number.isFinite(ratio) ? ratio : 0) / max) * plotWidth;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<rect x="${labelWidth}" y="30" width="12" height="10" fill="#2f6db5"/><text x="${labelWidth + 16}" y="39">CPU per turn / bare loop</text>`,
    `<rect x="${labelWidth + 200}" y="30" width="12" height="10" fill="#a8c4e6"/><text x="${labelWidth + 216}" y="39">wall per turn / bare loop</text>`,
  ];
  bars.forEach((bar, index) => {
    const y = top + index * rowHeight;
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 24}" text-anchor="end">${escapeXml(bar.name)}</text>`,
      `<rect class="bar-cpu" x="${labelWidth}" y="${y + 6}" width="${(x(bar.cpu) - labelWidth).toFixed(1)}" height="15" fill="#2f6db5"/>`,
      `<text x="${(x(bar.cpu) + 4).toFixed(1)}" y="${y + 18}">${label(bar.cpu)}</text>`,
      `<rect class="bar-wall" x="${labelWidth}" y="${y + 22}" width="${(x(bar.wall) - labelWidth).toFixed(1)}" height="15" fill="#a8c4e6"/>`,
      `<text x="${(x(bar.wall) + 4).toFixed(1)}" y="${y + 34}">${label(bar.wall)}</text>`,
    );
  });
  const axisY = top + bars.length * rowHeight + 4;
  parts.push(
    `<line x1="${labelWidth}" y1="${axisY}" x2="${labelWidth + plotWidth}" y2="${axisY}" stroke="#333"/>`,
  );
  for (let tick = 0; tick <= max + 1e-9; tick += max > 4 ? 1 : 0.5) {
    parts.push(
      `<line x1="${x(tick).toFixed(1)}" y1="${axisY}" x2="${x(tick).toFixed(1)}" y2="${axisY + 5}" stroke="#333"/>`,
      `<text x="${x(tick).toFixed(1)}" y="${axisY + 18}" text-anchor="middle">${tick.toFixed(1)}x</text>`,
    );
  }
  parts.push(
    `<line x1="${x(1).toFixed(1)}" y1="${top}" x2="${x(1).toFixed(1)}" y2="${axisY}" stroke="#c0392b" stroke-dasharray="4 3"/>`,
    '</svg>',
    '',
  );
  return parts.join('\n');
}
