// `@switchyard/control-plane/testing`: raw SQL on an open control plane, for tests and diagnostics.
// Unstable: outside the package's public API and semver (the schema changes with migrations).

export { queryControlPlane } from './database/control-plane-database';
export type { QueryResult } from './database/database';
