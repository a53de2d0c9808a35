import type { z } from 'zod';
import type { WorkerConfigIssue } from './worker-config-error';

/** A field path as the messages write it: `tasks[2].id`, `(root)` for the value itself. */
function fieldOf(pathParts: readonly PropertyKey[]): string {
  let field = '';
  for (const part of pathParts) {
    if (typeof part === 'number') field += `[${part}]`;
    else field += field === '' ? String(part) : `.${String(part)}`;
  }
  return field === '' ? '(root)' : field;
}

/**
 * The configuration file schema's issues as the worker reports them: each with its field path
 * (`serve.port`, `agents.ada.approvals.tools`), an unknown key named as a field of its own, a union
 * reported against the branch the value came closest to.
 */
export function configIssuesOf(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): WorkerConfigIssue[] {
  const result: WorkerConfigIssue[] = [];
  for (const issue of issues) {
    const at = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        result.push({ field: fieldOf([...at, key]), message: 'is not a known field' });
      continue;
    }
    if (issue.code === 'invalid_key') {
      result.push({ field: fieldOf(at), message: issue.issues[0]?.message ?? issue.message });
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // A value of the type of only one branch (an object where a name or an object is allowed)
      // is reported against that branch: its fields are named.
      const sameType = issue.errors.filter(
        (branch) => !branch.some((entry) => entry.code === 'invalid_type' && entry.path.length === 0),
      );
      if (sameType.length === 1) {
        result.push(...configIssuesOf(sameType[0] ?? [], at));
        continue;
      }
      // Report the branch the value came closest to (an MCP server with `command` is a stdio
      // server); when no branch is closest, the union's own message says what is expected.
      const sizes = issue.errors.map((branch) => branch.length);
      const fewest = Math.min(...sizes);
      if (sizes.filter((size) => size === fewest).length === 1) {
        result.push(...configIssuesOf(issue.errors[sizes.indexOf(fewest)] ?? [], at));
        continue;
      }
    }
    result.push({ field: fieldOf(at), message: issue.message });
  }
  return result;
}
