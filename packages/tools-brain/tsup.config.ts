// One build for the library packages: see the repository's tsup.base.ts.
export { default } from '../../tsup.base';
