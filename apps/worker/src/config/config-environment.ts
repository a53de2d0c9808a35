/** The environment a configuration reads: variable names to values. */
export type ConfigEnvironment = Readonly<Record<string, string | undefined>>;

/** A variable's value, an empty one counting as not set. */
export function variableOf(env: ConfigEnvironment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}
