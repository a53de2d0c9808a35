import { ApiError } from '../api/client';
import { errorText } from '../ui/format';

/** The daemon's messages of a 400, sorted to the form's inputs. */
export interface FieldErrors {
  /** Messages by the key of the input they belong to (`name`, `tasks.2.dependsOn`). */
  byInput: Map<string, string[]>;
  /** Messages for fields with no input on the form (`tasks`, `tasks.1`), shown above it. */
  general: string[];
}

/** `tasks[2].dependsOn[0]` -> `tasks.2.dependsOn.0`: one spelling for the daemon's paths and ours. */
export function normalizeFieldPath(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');
}

/** The input key among `inputs` that `path` belongs to: the longest one `path` starts with, by segment. */
function inputOf(path: string, inputs: ReadonlySet<string>): string | undefined {
  const segments = normalizeFieldPath(path).split('.');
  for (let length = segments.length; length > 0; length--) {
    const key = segments.slice(0, length).join('.');
    if (inputs.has(key)) return key;
  }
  return undefined;
}

/**
 * Sorts an error of the daemon to the form's inputs.
 *
 * The daemon answers a bad body with `fields` (each path at fault, `tasks[0].dependsOn`) and one
 * `message` listing each problem as `path: what is wrong`, joined by `; `; each problem is cut out of
 * the message at the start of its path (not at every `; `, which a problem's own text may hold).
 *
 * Contract: every message of `error` lands in `byInput` or `general`, none twice; anything that is not
 * an `ApiError` with fields lands in `general` whole.
 */
export function sortFieldErrors(error: unknown, inputs: ReadonlySet<string>): FieldErrors {
  const byInput = new Map<string, string[]>();
  const general: string[] = [];
  const add = (path: string | undefined, message: string) => {
    const key = path === undefined ? undefined : inputOf(path, inputs);
    if (key === undefined) {
      general.push(message);
      return;
    }
    byInput.set(key, [...(byInput.get(key) ?? []), message]);
  };
  if (!(error instanceof ApiError) || error.fields === undefined) {
    general.push(errorText(error));
    return { byInput, general };
  }
  const paths = error.fields;
  const message = error.message;
  // Where each problem starts: at the message's start or after `; `, with a path of `fields` and `: `.
  const starts: { at: number; path: string }[] = [];
  for (const path of paths) {
    const prefix = `${path}: `;
    for (let at = message.indexOf(prefix); at !== -1; at = message.indexOf(prefix, at + 1)) {
      if (at === 0 || message.startsWith('; ', at - 2)) starts.push({ at, path });
    }
  }
  starts.sort((a, b) => a.at - b.at || b.path.length - a.path.length);
  const distinct = starts.filter((start, index) => index === 0 || start.at !== starts[index - 1]?.at);
  if (distinct.length === 0 || (distinct[0]?.at ?? 0) > 0) {
    const head = message.slice(0, distinct[0]?.at ?? message.length).replace(/; $/, '');
    // A message that names no field: beside the one field when there is one, else above the form.
    add(paths.length === 1 ? paths[0] : undefined, head);
  }
  distinct.forEach((start, index) => {
    const end = distinct[index + 1]?.at ?? message.length;
    add(start.path, message.slice(start.at, end).replace(/; $/, ''));
  });
  return { byInput, general };
}
