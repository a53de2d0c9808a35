const marker = Symbol.for('switchyard.error');

/**
 * Base class of every error Switchyard throws.
 *
 * Independently versioned packages can install two copies of core, so `instanceof` is unreliable
 * across packages: each subclass carries a `Symbol.for('switchyard.error.<name>')` marker and a
 * static `isInstance(value)` that checks it.
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
}
