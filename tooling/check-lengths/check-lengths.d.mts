/** The limits, in lines: a function, a file. */
export const LIMITS: Readonly<{ functionLines: number; fileLines: number }>;
/** Where the exceptions are listed, from the repository's root. */
export const EXCEPTIONS_FILE: string;

/** What is over the limits: files and functions (`path#name`) with their lines, and each function's first line. */
export interface Over {
  files: Record<string, number>;
  functions: Record<string, number>;
  lines: Record<string, number>;
}

/** The listed exceptions: what may stay over the limits, and at most how long. */
export interface Exceptions {
  files?: Record<string, number>;
  functions?: Record<string, number>;
  [key: string]: unknown;
}

/** Whether a file (a path from the root, with `/`) is source the limits apply to, judged by its path. */
export function isSourcePath(file: string): boolean;
/** Whether a file's text says it was generated. */
export function isGenerated(text: string): boolean;
/** Lines of a text as `wc -l` counts them, a last line without its newline included. */
export function lineCount(text: string): number;
/** Every function of a source file with its qualified name, first line and length in lines. */
export function measureFunctions(
  file: string,
  text: string,
): Array<{ name: string; line: number; lines: number }>;
/** The key of a function in the exceptions: `path#name`. */
export function functionKey(file: string, name: string): string;
/** What is over the limits in `files`. */
export function measure(
  files: ReadonlyArray<{ path: string; text: string }>,
  limits?: { functionLines: number; fileLines: number },
): Over;
/** One line per problem: new over a limit, grown past its entry, shrunk below it, or no longer over. */
export function compare(
  over: Over,
  exceptions: Exceptions,
  limits?: { functionLines: number; fileLines: number },
): string[];
/** The exceptions lowered to what is over the limits now; none added or raised. */
export function shrinkExceptions(over: Over, exceptions: Exceptions): Exceptions;
/** The source files of the repository at `root`, tracked and new, with their text. */
export function sourceFiles(root: string): Array<{ path: string; text: string }>;
/** The exceptions file as text: one entry a line, keys sorted. */
export function formatExceptions(exceptions: Exceptions): string;
