import { type ComponentChildren, createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { useResource } from '../ui/use-resource';
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
  const {
    value: list,
    error,
    reload,
    set,
    update,
  } = useResource(
    (signal) =>
      unwrap(api.GET('/v1/approvals', { params: { query: { status: 'pending', limit: 100 } }, signal })),
    [],
  );
  /** The list with `approval` in it while pending, out of it once answered. */
  const settledIn = (approval: Approval) => (current: typeof list) => {
    const others = (current?.approvals ?? []).filter((entry) => entry.id !== approval.id);
    return { ...current, approvals: approval.status === 'pending' ? [approval, ...others] : others };
  };
  // An answer given here: shown at once, and its live event confirms it.
  const settle = (approval: Approval) => set(settledIn(approval));
  useLiveEvents({
    onEvent: (event) => {
      // Also on top of a reload under way, which may have read the list before this event.
      if (event.type === 'approval') update(settledIn(event.data as Approval));
    },
    onOpen: reload,
  });
  return (
    <PendingContext.Provider
      value={{ approvals: list?.approvals, more: list?.nextCursor !== undefined, error, reload, settle }}
    >
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
