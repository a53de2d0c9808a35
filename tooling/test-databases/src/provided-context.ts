// What the global setup `provide`s to the test files, typed for `inject`. Imported (for its types)
// by both the global setup and the backends, so every package that uses either sees it.
import type {} from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server's admin URL, or null when no server binaries exist. */
    postgresUrl: string | null;
  }
}
