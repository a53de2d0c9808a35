import { diffLines } from 'diff';

// A held edit is at most the approval's inline arguments (64 KiB): the diff still gets a budget, so a
// pathological pair (every line changed) costs the page bounded time; past it, the arguments say it.
const DIFF_BUDGET = { maxEditLength: 2_000, timeout: 200 } as const;

/** The old and new text of an `edit_file` call's arguments, when they are both strings. */
function editOf(argumentsValue: unknown): { path: string; before: string; after: string } | undefined {
  if (typeof argumentsValue !== 'object' || argumentsValue === null) return undefined;
  const { path, old_string: before, new_string: after } = argumentsValue as Record<string, unknown>;
  if (typeof before !== 'string' || typeof after !== 'string') return undefined;
  return { path: typeof path === 'string' ? path : '', before, after };
}

/** The lines of a diff part, each with its mark (`-`, `+` or a space). */
function markedLines(value: string, mark: string): string[] {
  const lines = value.endsWith('\n') ? value.slice(0, -1).split('\n') : value.split('\n');
  return lines.map((line) => `${mark} ${line}`);
}

/**
 * What a held `edit_file` call changes, as a line diff of its `old_string` and `new_string` (jsdiff,
 * within a budget): removed lines marked `-`, added ones `+`, the rest as they are. Nothing for a call
 * of another tool or arguments not shown whole.
 */
export function EditDiff({ toolKey, argumentsValue }: { toolKey: string; argumentsValue: unknown }) {
  if (toolKey !== 'edit_file') return null;
  const edit = editOf(argumentsValue);
  if (edit === undefined) return null;
  const parts = diffLines(edit.before, edit.after, DIFF_BUDGET);
  return (
    <section class="held-diff" aria-label={`Change to ${edit.path}`}>
      <h3>Change to {edit.path}</h3>
      {parts === undefined ? (
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
