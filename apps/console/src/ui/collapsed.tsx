/**
 * A long text folded away until asked for: a `<details>` whose summary names it, the text in a
 * `<pre>` (JSON through `formatJson`, a prompt, a tool's output). `open` starts it unfolded.
 */
export function Collapsed({
  summary,
  open,
  children,
}: {
  /** What the text is: the summary's words. */
  summary: string;
  /** Whether it starts unfolded. */
  open?: boolean;
  /** The text. */
  children: string;
}) {
  return (
    <details open={open}>
      <summary>{summary}</summary>
      <pre>{children}</pre>
    </details>
  );
}
