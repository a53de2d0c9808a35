/**
 * Says that what a page shows is on its way (`aria-busy`); nothing once loading it failed, since an
 * `ErrorAlert` then says why.
 */
export function Loading({ error, text = 'Loading…' }: { error?: string | undefined; text?: string }) {
  return error === undefined ? <p aria-busy="true">{text}</p> : null;
}
