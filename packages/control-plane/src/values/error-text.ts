/**
 * An error's message as an `error` column stores it: NUL characters removed (PostgreSQL text refuses
 * them) and at most 2000 characters.
 */
export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replaceAll('\u0000', '').slice(0, 2000);
}
