import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { api, type Schema, unwrap } from './api/client';

/**
 * Who the page is signed in as, from `GET /v1/session`: `access` (`read-only` hides every control
 * that changes something), the agents served, the default agent and the worker's version.
 */
export type Session = Schema<'Session'>;

/**
 * Asks the daemon who this tab is.
 *
 * Contract: resolves to the session; rejects with `ApiError` (401 `unauthorized` when a token is
 * needed or the stored one is wrong).
 */
export function loadSession(): Promise<Session> {
  return unwrap(api.GET('/v1/session'));
}

export const SessionContext = createContext<Session | undefined>(undefined);

/** The signed-in session; only inside the signed-in part of the page. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === undefined) throw new Error('useSession outside the signed-in page');
  return session;
}

/** Whether this session may change anything (cancel, answer, start). */
export function useCanWrite(): boolean {
  return useSession().access === 'full';
}
