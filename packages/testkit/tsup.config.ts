import { createRequire } from 'node:module';
import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

// The fake Responses server is a private workspace package (core's tests use it too), bundled into
// this build, code and declarations, so the published testkit depends on nothing unpublished. esbuild
// bundles it by `noExternal`. The declaration bundler leaves alone any module reached through a
// `node_modules` link (it counts as an external library's), so the type checker is pointed at the
// package's source where the workspace link leads (resolved, not written as a path).
const fakeServerSource = createRequire(import.meta.url).resolve('@switchyard/fake-responses-server');

export default defineConfig({
  ...libraryBuild,
  // Two entries: `index` imports no test runner; `conformance` is the vitest-based suite.
  entry: { index: 'src/index.ts', conformance: 'src/conformance/index.ts' },
  noExternal: ['@switchyard/fake-responses-server'],
  dts: { compilerOptions: { paths: { '@switchyard/fake-responses-server': [fakeServerSource] } } },
});
