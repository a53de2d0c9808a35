type Tone = 'ok' | 'bad' | 'wait' | 'idle';

const TONES: Record<string, Tone> = {
  completed: 'ok',
  active: 'ok',
  failed: 'bad',
  cancelled: 'bad',
  aborted: 'bad',
  interrupted: 'bad',
  running: 'wait',
  queued: 'wait',
  'waiting-approval': 'wait',
};

/**
 * The tone of a workflow, task or schedule status, so colour repeats what the text says (never
 * replaces it): `ok` for success, `bad` for failure, `wait` for work under way, `idle` for not
 * started. The tone names the word's class (`status-<tone>`, `src/styles.css`) and the graph node's
 * (`tone-<tone>`). Not the turn's tones (`ui/status-text.tsx`): there an unknown outcome is a failure,
 * here an unknown status (`pending`, `ended`) is idle.
 */
export function statusTone(status: string): Tone {
  return TONES[status] ?? 'idle';
}

/** A status as text with its tone's colour. */
export function StatusText({ status }: { status: string }) {
  return <span class={`status status-${statusTone(status)}`}>{status}</span>;
}
