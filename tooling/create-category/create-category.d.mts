/** Writes a new tool category package into `<root>/packages/tools-<name>`; returns its directory. */
export function createCategory(root: string, name: string): string;
