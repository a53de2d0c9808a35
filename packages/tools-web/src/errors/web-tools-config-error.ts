import { type ConfigErrorOptions, SwitchyardConfigError } from '@switchyard/core';

/**
 * The web tools' configuration is invalid: an unknown search provider, a missing API key, a bad
 * base URL, a non-positive cap, a malformed allowed target, ...
 *
 * Contract: thrown by `createWebTools` (and `checkUrl` for its options) when the configuration is
 * read, never mid-turn. `field` names the offending option, e.g. `search.apiKey`.
 */
export class WebToolsConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('WebToolsConfigError', 'web tools', options);
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is WebToolsConfigError {
    return SwitchyardConfigError.hasMark(value, 'WebToolsConfigError');
  }
}
