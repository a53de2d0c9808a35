/**
 * The fields `keys` of `source` whose value is not undefined: a record's optional fields as the API
 * sends them, left out rather than present as undefined.
 */
export function definedFields<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): { [P in K]?: Exclude<T[P], undefined> } {
  const picked: { [P in K]?: Exclude<T[P], undefined> } = {};
  for (const key of keys) {
    const value = source[key];
    if (value !== undefined) picked[key] = value as Exclude<T[K], undefined>;
  }
  return picked;
}

/** The fields `keys` of `source`, as they are: a record's required fields as the API sends them. */
export function pickedFields<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = source[key];
  return picked;
}
