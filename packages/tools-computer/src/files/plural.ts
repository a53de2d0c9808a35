/** `count` and `noun`, with the `s` of a plural when `count` is not 1: `1 line`, `3 lines`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
