import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError, authHeaders } from './api/client';

/** Who the page is signed in as, from `GET /v1/session`. */
export interface Session {
  /** `read-only`: signed in with the read-only token; every control that changes something is hidden. */
  access: 'full' | 'read-only';
  /** The agents this daemon serves. */
  agents: string[];
  /** The agent a request without `agent` is for. */
  defaultAgent: string;
  /** The worker's version. */
  version: string;
}

/**
 * Asks the daemon who this tab is.
 *
 * Contract: resolves to the session; rejects with `ApiError` (401 `unauthorized` when a token is
 * needed or the stored one is wrong).
 */
export async function loadSession(): Promise<Session> {
  const response = await fetch('/v1/session', { headers: authHeaders() });
  const body = (await response.json().catch(() => ({}))) as Session & {
    error?: { code: string; message: string };
  };
  if (!response.ok) {
    throw new ApiError(
      response.status,
      body.error?.code ?? 'http_error',
      body.error?.message ?? `the daemon answered ${response.status}`,
    );
  }
  return body;
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
