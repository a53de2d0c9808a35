// Test-only code shared by the packages' suites; no package builds it into what it publishes.
export {
  type CollectGarbageOftenOptions,
  collectGarbageOften,
  type ForcedCollections,
} from './collect-garbage-often';
export { describePublicApi } from './describe-public-api';
export { type MarkedErrorClass, rejectionOf, thrownBy } from './thrown-by';
