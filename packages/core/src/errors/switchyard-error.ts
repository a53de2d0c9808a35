const marker = Symbol.for('switchyard.error');

/**
 * Base class of every error Switchyard throws.
 *
 * Independently versioned packages can install two copies of core, so `instanceof` is unreliable
 * across packages: each subclass marks its instances with `markAs(name)` (a
 * `Symbol.for('switchyard.error.<name>')` property) and checks that mark in a static
 * `isInstance(value)` through `hasMark(value, name)`.
 */
export class SwitchyardError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SwitchyardError';
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for any Switchyard error, from any copy of core. */
  static isInstance(value: unknown): value is SwitchyardError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /** Names this error `name` and marks it so that `hasMark(error, name)` holds in any copy of the package. */
  protected markAs(name: string): void {
    this.name = name;
    Object.defineProperty(this, Symbol.for(`switchyard.error.${name}`), { value: true });
  }

  /** True when `value` was marked `name` by `markAs`: a subclass's `isInstance` is this check. */
  protected static hasMark(value: unknown, name: string): boolean {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[Symbol.for(`switchyard.error.${name}`)] === true
    );
  }
}
