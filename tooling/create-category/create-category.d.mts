/** The command's usage text, printed for `--help` and with every name error. */
export const USAGE: string;

/** A missing or malformed category name: the command prints it with the usage and exits with 2. */
export class CategoryNameError extends Error {}

/**
 * The category name without the optional `tools-` prefix (`tools-crm` and `crm` are both `crm`).
 *
 * Contract: throws `CategoryNameError` unless the name is lower-case words joined by '-'.
 */
export function categoryName(name: unknown): string;

/**
 * Writes a new tool category package into `<root>/packages/tools-<name>`; returns its directory.
 *
 * Contract: `name` may carry the `tools-` prefix; throws `CategoryNameError` for a bad name and an
 * `Error` when the package already exists.
 */
export function createCategory(root: string, name: string): string;
