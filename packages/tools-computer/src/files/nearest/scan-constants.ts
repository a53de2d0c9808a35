/** The character every run of whitespace collapses to. */
export const SPACE = 32;

/** Characters scanned between looks at the clock. */
export const CHARACTERS_PER_CHECK = 1 << 16;
