// Any export added here is used by the packages' test suites: keep names stable. (Private, never published.)
export { createPgliteDataDir } from './pglite-template';
export {
  createPgliteDatabase,
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
  type TestBackend,
  type TestDatabase,
  testBackends,
} from './test-backends';
