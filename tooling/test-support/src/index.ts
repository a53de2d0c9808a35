// Test-only code shared by the packages' suites; no package builds it into what it publishes.
export {
  type CollectGarbageOftenOptions,
  collectGarbageOften,
  type ForcedCollections,
} from './collect-garbage-often';
export { describePublicApi, type PinnedEntry } from './describe-public-api';
export { type EntryExports, readEntryExports } from './read-entry-exports';
export { type MarkedErrorClass, rejectionOf, thrownBy } from './thrown-by';
