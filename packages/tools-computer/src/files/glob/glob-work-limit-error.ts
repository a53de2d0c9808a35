/** Thrown by a compiled glob when matching has used its work budget. */
export class GlobWorkLimitError extends Error {
  constructor(readonly pattern: string) {
    super(`matching the glob ${pattern} used up its work limit`);
    this.name = 'GlobWorkLimitError';
  }
}
