/** Statuses that ended well, badly, or are still under way: the class only colours the word. */
const TONES: Record<string, string> = {
  running: 'busy',
  'waiting-approval': 'wait',
  pending: 'wait',
  completed: 'ok',
  allowed: 'ok',
  'ended-by-tool': 'ok',
};

/** A status as its word (never colour alone), tinted by how it ended. */
export function StatusText({ status }: { status: string }) {
  return <span class={`status status-${TONES[status] ?? 'bad'}`}>{status}</span>;
}
