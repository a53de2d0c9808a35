// Any export added here is public API: keep it named, documented and deliberate.

export { type DatabaseTarget, resolveDatabaseTarget } from './resolve-database-target';
