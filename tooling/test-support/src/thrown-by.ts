/**
 * An error class with the static `isInstance` check every Switchyard error class has. Tests check
 * with it rather than `instanceof`, as the packages do: two copies of a package mark their errors
 * alike, and a test should pass on the check the code relies on.
 */
export interface MarkedErrorClass<E> {
  /** The class name, for the message when nothing was thrown. */
  readonly name: string;
  /** True for an instance of the class from any copy of its package. */
  isInstance(value: unknown): value is E;
}

/**
 * The error of class `errorClass` that `run` throws. Anything else it throws is rethrown as it is,
 * and throwing nothing fails the test.
 *
 * @example
 * const error = thrownBy(() => createComputerTools({ home: '/missing' }), ComputerToolsConfigError);
 * expect(error.field).toBe('home');
 */
export function thrownBy<E>(run: () => unknown, errorClass: MarkedErrorClass<E>): E {
  try {
    run();
  } catch (error) {
    if (errorClass.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected a ${errorClass.name}, nothing was thrown`);
}

/** `thrownBy` for an async `run`: the error of class `errorClass` its promise rejects with. */
export async function rejectionOf<E>(
  run: () => Promise<unknown>,
  errorClass: MarkedErrorClass<E>,
): Promise<E> {
  try {
    await run();
  } catch (error) {
    if (errorClass.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected a ${errorClass.name}, nothing was thrown`);
}
