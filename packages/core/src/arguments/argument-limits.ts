/** Arguments larger than this many UTF-8 bytes are refused before parsing (`too-large`). */
export const MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;

/** Arguments nested deeper than this many objects and arrays are refused before parsing (`too-deep`). */
export const MAX_TOOL_ARGUMENT_DEPTH = 64;
