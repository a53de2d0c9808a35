import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * The property test of a linear scan against the regular expressions it replaced: on `numRuns`
 * texts of up to `maxPieces` parts, each one of `pieces` or a random string of up to 3 characters,
 * `scan` gives exactly what `specification` gives.
 */
export function expectAgreesWithSpecification(
  scan: (text: string) => string,
  specification: (text: string) => string,
  options: { pieces: readonly string[]; maxPieces: number; numRuns: number },
): void {
  const piece = fc.constantFrom(...options.pieces);
  fc.assert(
    fc.property(
      fc.array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: options.maxPieces, size: 'max' }),
      (parts) => {
        const text = parts.join('');
        expect(scan(text)).toBe(specification(text));
      },
    ),
    { numRuns: options.numRuns },
  );
}
