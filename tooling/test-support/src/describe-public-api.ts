import { describe, expect, it } from 'vitest';
import { readEntryExports } from './read-entry-exports';

/** What `describePublicApi` pins for one entry. */
export interface PinnedEntry {
  /** The entry's TypeScript source, e.g. `new URL('./index.ts', import.meta.url)`. */
  source: URL | string;
  /** The entry as loaded: `import * as api from './index'`. */
  module: object;
  /** Every runtime name the entry exports, sorted. */
  runtime: readonly string[];
  /** Every type-only name the entry exports (interfaces, type aliases, `type` re-exports), sorted. */
  types: readonly string[];
  /**
   * The entry is outside the package's public API and semver (core's `@switchyard/core/internal`,
   * the control plane's `/testing`): its suite says so. Its names are still pinned, so that what
   * other packages reach for there changes only on purpose.
   */
  internal?: boolean;
}

/**
 * Pins the names an entry point exports, runtime and types: a suite with one test per kind that
 * fails when a name is added to the entry or removed from it. Types are read from the entry's
 * source with the TypeScript parser (`readEntryExports`); runtime names are the loaded module's keys,
 * and the source's runtime names must match them too. Removing a public name is a breaking change
 * (a `minor` changeset while 0.x); adding one widens what the package must keep stable. The suite is
 * `public API of <entry>`, or `internal entry <entry> (not public API)` with `internal`.
 *
 * @example
 * import * as publicApi from './index';
 * describePublicApi('@switchyard/tools-web', {
 *   source: new URL('./index.ts', import.meta.url),
 *   module: publicApi,
 *   runtime: ['WebToolsConfigError', 'checkUrl', 'createWebTools'],
 *   types: ['CheckUrlOptions', 'WebToolsContext'],
 * });
 */
export function describePublicApi(entry: string, pinned: PinnedEntry): void {
  const title =
    pinned.internal === true ? `internal entry ${entry} (not public API)` : `public API of ${entry}`;
  describe(title, () => {
    it('exports exactly the documented runtime names', () => {
      expect(Object.keys(pinned.module).sort()).toEqual(pinned.runtime);
      expect(readEntryExports(pinned.source).runtime).toEqual(pinned.runtime);
    });

    it('exports exactly the documented type names', () => {
      expect(readEntryExports(pinned.source).types).toEqual(pinned.types);
    });
  });
}
