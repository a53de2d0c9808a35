/**
 * The path (`output[2].content[0]...`, from `rootName`) of the first object or array nested deeper
 * than `maxDepth` levels (`root` itself is level 0, its members level 1), or undefined. Walks with a
 * stack of its own, in one pass that stops at the first value too deep: linear in the values it
 * visits, and never deeper than `maxDepth` on the call stack.
 */
export function tooDeepPath(root: unknown, rootName: string, maxDepth: number): string | undefined {
  const pending: Array<{ value: unknown; depth: number; path: () => string }> = [
    { value: root, depth: 0, path: () => rootName },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth, path } = next;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) return path();
    // Paths are built only for the one reported: a closure over its parent's, not a string per value.
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[index], depth: depth + 1, path: () => `${path()}[${index}]` });
      }
    } else {
      for (const key of Object.keys(value)) {
        pending.push({
          value: (value as Record<string, unknown>)[key],
          depth: depth + 1,
          path: () => `${path()}.${key}`,
        });
      }
    }
  }
  return undefined;
}
