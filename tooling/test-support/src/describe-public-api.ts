import { describe, expect, it } from 'vitest';

/**
 * Pins the runtime names an entry point exports (`names`, listed sorted): a `public API of <entry>`
 * suite with one test that fails when a name is added to `module` or removed from it. Removing a name
 * is a breaking change (a `minor` changeset while 0.x); adding one widens what the package must keep
 * stable. Types leave no runtime name, so they are not pinned here.
 *
 * @example
 * import * as publicApi from './index';
 * describePublicApi('@switchyard/tools-web', publicApi, ['WebToolsConfigError', 'checkUrl', 'createWebTools']);
 */
export function describePublicApi(entry: string, module: object, names: readonly string[]): void {
  describe(`public API of ${entry}`, () => {
    it('exports exactly the documented runtime names', () => {
      expect(Object.keys(module).sort()).toEqual(names);
    });
  });
}
