// A fresh PGlite data directory for one test file: the control plane's template copy, reused rather
// than duplicated (initdb costs 5-8 s and ~800 MB; a copy reopens in about a second).
export { copyPgliteTemplate as createPgliteDataDir } from '../../../../packages/control-plane/src/__fixtures__/pglite-template';
