// The control plane's test backends (a copied PGlite template, a fresh database on the shared
// PostgreSQL server), reused rather than copied: the worker's end-to-end tests run on both.
// The global setup declares the `postgresUrl` the backends `inject`.
import type {} from '../../../../packages/control-plane/src/__fixtures__/postgres-global-setup';

export {
  createPgliteDatabase,
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
  type TestDatabase,
} from '../../../../packages/control-plane/src/__fixtures__/test-backends';
