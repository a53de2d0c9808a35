/** Arguments larger than this many UTF-8 bytes are refused before parsing (`too-large`). */
export const MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;

/**
 * Arguments with more values than this (counted as the commas outside strings: items and members
 * after the first of each array and object) are refused before parsing (`too-large`). A schema
 * check reports a problem per value, at about a microsecond each, on the thread that runs the turn:
 * 1 MB holds 500,000 values, whose check took 1.5 s. More values than this are more output tokens
 * than a model writes in one response.
 */
export const MAX_TOOL_ARGUMENT_VALUES = 100_000;

/** Arguments nested deeper than this many objects and arrays are refused before parsing (`too-deep`). */
export const MAX_TOOL_ARGUMENT_DEPTH = 64;
