import { ControlPlaneInputError } from '../index';

/** The `ControlPlaneInputError` that `promise` rejects with; throws when it fulfils or rejects otherwise. */
export async function inputError(promise: Promise<unknown>): Promise<ControlPlaneInputError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ControlPlaneInputError.isInstance(error))
    throw new Error(`expected a ControlPlaneInputError, got ${String(error)}`);
  return error;
}
