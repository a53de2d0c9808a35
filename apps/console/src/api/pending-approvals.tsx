import { type ComponentChildren, createContext } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { errorText } from '../ui/format';
import { api, type Schema, unwrap } from './client';
import { useLiveEvents } from './live-events';

/** One approval of the daemon (`GET /v1/approvals/{id}`). */
export type Approval = Schema<'Approval'>;

/** The pending approvals of the agents served, kept live; shared by the approvals page and its badge. */
export interface PendingApprovals {
  /** Pending approvals, newest first (undefined until the first answer). */
  approvals: Approval[] | undefined;
  /** Whether there are more than `approvals` (the list holds the newest 100). */
  more: boolean;
  /** Why the last load failed, if it did. */
  error: string | undefined;
  /** Loads the list again. */
  reload(): void;
  /** Takes an answered approval out of the list at once (the live event confirms it). */
  settle(approval: Approval): void;
}

const PendingContext = createContext<PendingApprovals | undefined>(undefined);

/** Loads the pending approvals and follows `approval` events of the live stream. */
export function PendingApprovalsProvider({ children }: { children: ComponentChildren }) {
  const [approvals, setApprovals] = useState<Approval[] | undefined>(undefined);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useCallback(() => {
    unwrap(api.GET('/v1/approvals', { params: { query: { status: 'pending', limit: 100 } } })).then(
      (list) => {
        setApprovals(list.approvals);
        setMore(list.nextCursor !== undefined);
        setError(undefined);
      },
      (failure: unknown) => setError(errorText(failure)),
    );
  }, []);
  useEffect(reload, [reload]);
  const settle = useCallback((approval: Approval) => {
    setApprovals((current) => {
      const others = (current ?? []).filter((entry) => entry.id !== approval.id);
      return approval.status === 'pending' ? [approval, ...others] : others;
    });
  }, []);
  useLiveEvents({
    onEvent: (event) => {
      if (event.type === 'approval') settle(event.data as Approval);
    },
    onOpen: reload,
  });
  return (
    <PendingContext.Provider value={{ approvals, more, error, reload, settle }}>
      {children}
    </PendingContext.Provider>
  );
}

/** The pending approvals (inside `PendingApprovalsProvider`). */
export function usePendingApprovals(): PendingApprovals {
  const pending = useContext(PendingContext);
  if (pending === undefined) throw new Error('usePendingApprovals outside PendingApprovalsProvider');
  return pending;
}
