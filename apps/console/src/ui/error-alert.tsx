/**
 * An error of the daemon shown where it happened and announced (`role="alert"`); nothing while there
 * is none. `context` goes before the message: `Could not cancel: <message>`.
 */
export function ErrorAlert({ error, context }: { error: string | undefined; context?: string }) {
  return error === undefined ? null : (
    <p role="alert" class="error">
      {context}
      {error}
    </p>
  );
}
