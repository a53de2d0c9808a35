import { SwitchyardError } from '@switchyard/core';

const marker = Symbol.for('switchyard.error.WebToolsConfigError');

/**
 * The web tools' configuration is invalid: an unknown search provider, a missing API key, a bad
 * base URL, a non-positive cap, a malformed allowed target, ...
 *
 * Contract: thrown by `createWebTools` (and `checkUrl` for its options) when the configuration is
 * read, never mid-turn. `field` names the offending option, e.g. `search.apiKey`.
 */
export class WebToolsConfigError extends SwitchyardError {
  /** The option at fault, as a dotted path from the context, e.g. `fetch.timeoutMs`. */
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super(`Invalid web tools configuration: ${options.field}: ${options.message}`, { cause: options.cause });
    this.name = 'WebToolsConfigError';
    Object.defineProperty(this, marker, { value: true });
    this.field = options.field;
  }

  static override isInstance(value: unknown): value is WebToolsConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
