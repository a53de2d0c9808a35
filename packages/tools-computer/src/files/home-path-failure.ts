import { HomePathError } from '../paths/home-path-error';

/**
 * The `isError` result for a path the model gave that cannot be used (its message is written for
 * the model). Anything else is not the model's mistake and is thrown again.
 */
export function homePathFailure(caught: unknown): { content: string; isError: true } {
  if (caught instanceof HomePathError) return { content: caught.message, isError: true };
  throw caught;
}
