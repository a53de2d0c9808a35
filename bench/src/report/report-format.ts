// The number formats the sections of RESULTS.md share, and the markers around a section.
import type { SuiteName } from './suite-names';

/** A ratio with two decimals and an `x` (`1.05x`); `-` for a ratio that could not be measured. */
export const ratioText = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-');

/** Milliseconds with two decimals. */
export const msText = (value: number) => `${value.toFixed(2)} ms`;

/** Milliseconds with one decimal; `-` for NaN. */
export const msTenth = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '-');

/** A rate a second with one decimal; `-` for NaN. */
/** A share from 0 to 1 as a whole percentage (`97 %`), or `-`. */
export const percentText = (share: number) =>
  Number.isFinite(share) ? `${(share * 100).toFixed(0)} %` : '-';

export const perSecondText = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)}/s` : '-');

/**
 * A ratio as the tables print it (two decimals): every ratio target is judged on this, so a row
 * reading 0.75x meets a 0.75x target and no verdict says "missed by 0.00x".
 */
export const asPrinted = (ratio: number) => Math.round(ratio * 100) / 100;

/** A section's lines between its markers, so a partial run can find and replace it. */
export const marked = (name: SuiteName, lines: readonly string[]) =>
  [`<!-- bench:${name} -->`, ...lines, `<!-- /bench:${name} -->`].join('\n');
