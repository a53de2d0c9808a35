/** The longest pattern accepted, in characters. */
export const MAX_GLOB_LENGTH = 1_000;
/** The most alternatives `{a,b}` groups and `{1..9}` ranges may expand to. */
export const MAX_GLOB_ALTERNATIVES = 256;
/** The most characters all alternatives may hold together. */
export const MAX_EXPANDED_LENGTH = 20_000;
/** Default work budget of one compiled glob: pattern positions advanced over name characters. */
export const DEFAULT_GLOB_WORK = 50_000_000;
