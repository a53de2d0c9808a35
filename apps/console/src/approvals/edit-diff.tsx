import { diffLines } from 'diff';
import type { Approval } from '../api/pending-approvals';

// A held edit is at most the approval's inline arguments (64 KiB), a replaced file at most the 64 KiB
// the daemon keeps of it: the diff still gets a budget, so a pathological pair (every line changed)
// costs the page bounded time; past it, the arguments say it.
const DIFF_BUDGET = { maxEditLength: 2_000, timeout: 200 } as const;

type FileBefore = NonNullable<Approval['fileBefore']>;

/** What a held call changes: the path, the text before and after, and what to say beside the diff. */
interface Change {
  path: string;
  before: string;
  after: string;
  note?: string;
}

const kilobytes = (bytes: number) =>
  `${(bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KB`;

/** The old and new text of an `edit_file` call's arguments, when they are both strings. */
function editOf(argumentsValue: unknown): Change | undefined {
  if (typeof argumentsValue !== 'object' || argumentsValue === null) return undefined;
  const { path, old_string: before, new_string: after } = argumentsValue as Record<string, unknown>;
  if (typeof before !== 'string' || typeof after !== 'string') return undefined;
  return { path: typeof path === 'string' ? path : '', before, after };
}

/**
 * A `write_file` call's change: the file as the daemon recorded it against the new `content`, or
 * only a note when there is no text to diff (binary, unreadable, or not recorded). A new file is all
 * additions; of a cut file, the part kept is diffed against as much of the new content.
 */
function writeOf(
  argumentsValue: unknown,
  file: FileBefore | undefined,
): Change | { path: string; note: string } | undefined {
  if (typeof argumentsValue !== 'object' || argumentsValue === null) return undefined;
  const { path, content } = argumentsValue as Record<string, unknown>;
  if (typeof path !== 'string' || typeof content !== 'string') return undefined;
  if (file === undefined)
    return { path, note: 'The daemon recorded no copy of the file it replaces: read the arguments below.' };
  switch (file.state) {
    case 'missing':
      return { path, before: '', after: content, note: 'A new file.' };
    case 'text':
      return { path, before: file.text ?? '', after: content };
    case 'cut': {
      const kept = file.text ?? '';
      return {
        path,
        before: kept,
        after: content.slice(0, kept.length),
        note: `The file is ${kilobytes(file.bytes ?? 0)}: only its first ${kilobytes(new Blob([kept]).size)} are compared, with as much of the new content; read the arguments for the rest.`,
      };
    }
    case 'binary':
      return { path, note: `It replaces a binary file of ${kilobytes(file.bytes ?? 0)}: no diff is shown.` };
    default:
      return { path, note: `The file it replaces could not be read: ${file.reason ?? 'no reason given'}.` };
  }
}

/** The lines of a diff part, each with its mark (`-`, `+` or a space). */
function markedLines(value: string, mark: string): string[] {
  const lines = value.endsWith('\n') ? value.slice(0, -1).split('\n') : value.split('\n');
  return lines.map((line) => `${mark} ${line}`);
}

/**
 * What a held `edit_file` or `write_file` call changes, as a line diff (jsdiff, within a budget):
 * `edit_file`'s `old_string` against its `new_string`, `write_file`'s recorded file (`fileBefore`)
 * against its `content`, with a note when the file was new, cut, binary or unreadable. Removed lines
 * are marked `-`, added ones `+`, the rest as they are. Nothing for a call of another tool or
 * arguments not shown whole.
 */
export function EditDiff({ approval }: { approval: Pick<Approval, 'toolKey' | 'arguments' | 'fileBefore'> }) {
  const change =
    approval.toolKey === 'edit_file'
      ? editOf(approval.arguments)
      : approval.toolKey === 'write_file'
        ? writeOf(approval.arguments, approval.fileBefore)
        : undefined;
  if (change === undefined) return null;
  const parts = 'before' in change ? diffLines(change.before, change.after, DIFF_BUDGET) : null;
  return (
    <section class="held-diff" aria-label={`Change to ${change.path}`}>
      <h3>Change to {change.path}</h3>
      {change.note === undefined ? null : <p class="hint">{change.note}</p>}
      {parts === null ? null : parts === undefined ? (
        <p class="hint">Too many changes to show as a diff: read the arguments below.</p>
      ) : (
        <pre class="diff">
          {parts.flatMap((part, partIndex) => {
            const mark = part.added ? '+' : part.removed ? '-' : ' ';
            const kind = part.added ? 'diff-added' : part.removed ? 'diff-removed' : 'diff-same';
            return markedLines(part.value, mark).map((line, lineIndex) => (
              <span key={`${partIndex}:${lineIndex}`} class={kind}>
                {line}
                {'\n'}
              </span>
            ));
          })}
        </pre>
      )}
    </section>
  );
}
