import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCategory } from '../../../../tooling/create-category/create-category.mjs';

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const workerRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A category package scaffolded by `create-category` and built, outside the repository. */
export interface ScaffoldedCategory {
  /** The folder holding `packages/tools-<name>` and the `node_modules` it builds and runs against. */
  root: string;
  /** The package's folder. */
  directory: string;
  /** The package's name (`@switchyard/tools-<name>`). */
  packageName: string;
  /**
   * Makes `<folder>/node_modules/<package>` a link to the built package, as `npm install <folder>`
   * would, so a worker whose configuration file is in `folder` finds it there.
   */
  installInto(folder: string): void;
  /** Removes the folder. */
  close(): Promise<void>;
}

/** Links `<root>/node_modules/<name>` to the repository's installed copy of `name`, as `from` sees it. */
function linkDependency(root: string, name: string, from: string): void {
  const target = path.join(root, 'node_modules', name);
  mkdirSync(path.dirname(target), { recursive: true });
  symlinkSync(realpathSync(path.join(from, 'node_modules', name)), target);
}

/**
 * Scaffolds the category `name` with the create-category script into a fresh temporary folder (with
 * the repository's base tsconfig and tsup configuration the package extends) and builds it with its
 * own `build` script (tsup), against links to the repository's core, zod, tsup and TypeScript.
 */
export function scaffoldCategory(name: string): ScaffoldedCategory {
  const root = mkdtempSync(path.join(os.tmpdir(), 'switchyard-category-'));
  try {
    mkdirSync(path.join(root, 'packages', 'core'), { recursive: true });
    copyFileSync(
      path.join(repositoryRoot, 'packages/core/package.json'),
      path.join(root, 'packages/core/package.json'),
    );
    for (const file of ['tsconfig.base.json', 'tsup.base.ts']) {
      copyFileSync(path.join(repositoryRoot, file), path.join(root, file));
    }
    const directory = createCategory(root, name);
    // The scaffold's package depends on core (built by the repository's build) and zod; its build
    // runs tsup, which needs TypeScript and Node's types for the declarations.
    linkDependency(root, '@switchyard/core', workerRoot);
    linkDependency(root, 'zod', workerRoot);
    for (const tool of ['tsup', 'typescript', '@types/node']) linkDependency(root, tool, repositoryRoot);
    execFileSync(process.execPath, [path.join(repositoryRoot, 'node_modules/tsup/dist/cli-default.js')], {
      cwd: directory,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
    });
    const packageName = `@switchyard/tools-${name}`;
    return {
      root,
      directory,
      packageName,
      installInto: (folder) => {
        const target = path.join(folder, 'node_modules', packageName);
        mkdirSync(path.dirname(target), { recursive: true });
        symlinkSync(directory, target);
      },
      close: async () => rmSync(root, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Writes a package `name` into `<folder>/node_modules/<name>` whose entry is `source` (an ES module):
 * a hand-made category package, for the ways one can break the creator contract.
 */
export function writeCategoryPackage(folder: string, name: string, source: string): void {
  const directory = path.join(folder, 'node_modules', name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    path.join(directory, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', exports: { '.': { import: './index.js' } } }),
  );
  writeFileSync(path.join(directory, 'index.js'), source);
}
