import path from 'node:path';
import type { WorkerConfigIssue } from './worker-config-error';

/** A read-only path that would show the whole host is refused: the sandbox shows an allowlist. */
export function refuseWholeFileSystem(
  entries: readonly string[] | undefined,
  field: string,
  baseDir: string,
  issues: WorkerConfigIssue[],
): void {
  (entries ?? []).forEach((entry, index) => {
    if (path.resolve(baseDir, entry) === path.parse(baseDir).root) {
      issues.push({ field: `${field}[${index}]`, message: 'cannot show the whole file system to commands' });
    }
  });
}
