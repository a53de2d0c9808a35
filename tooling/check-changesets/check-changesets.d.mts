/** The base commit to compare HEAD with (argument, SWITCHYARD_BASE_REF, or the merge base with origin/main), or undefined. */
export function findBase(root: string, given?: string): string | undefined;
/** Package names a changeset's front matter lists. */
export function packagesOfChangeset(text: string): string[];
/** Library packages whose src/ changed since `base` without a changeset naming them, with one changed file each. */
export function missingChangesets(root: string, base: string): Array<{ name: string; file: string }>;
