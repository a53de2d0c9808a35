/**
 * The CSS class of a status word, so colour repeats what the text says (never replaces it):
 * `ok` for success, `bad` for failure, `busy` for work under way, `idle` for waiting.
 */
export function statusTone(status: string): 'ok' | 'bad' | 'busy' | 'idle' {
  switch (status) {
    case 'completed':
    case 'active':
      return 'ok';
    case 'failed':
    case 'cancelled':
    case 'aborted':
    case 'interrupted':
      return 'bad';
    case 'running':
    case 'queued':
    case 'waiting-approval':
      return 'busy';
    default:
      return 'idle';
  }
}

/** A status as text with its tone's colour. */
export function StatusText({ status }: { status: string }) {
  return <span class={`wf-status wf-status-${statusTone(status)}`}>{status}</span>;
}
