import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '@switchyard/core/internal';

/** Where one call's progress goes: the params of each `notifications/progress` for its token. */
export type ProgressRoute = (params: Record<string, unknown>) => void;

/**
 * The progress of each running call, read off one transport's messages as they arrive. The SDK
 * cannot be relied on for it: it handles a notification a microtask after the message arrived but a
 * response at once, and drops the progress handler with the response, so progress a server writes
 * together with its result (the last report, typically) never reaches the SDK's `onprogress`. Here
 * a notification is delivered synchronously, before the SDK sees the response that follows it.
 *
 * The transport's `send` calls `sent` and its `onmessage` calls `received`; a call opens its route
 * with `open`, around the SDK call that sends its request, and closes it when it ends.
 */
export class ProgressRoutes {
  private readonly routes = new Map<string | number, ProgressRoute>();
  private opening: { route: ProgressRoute; token?: string | number } | undefined;

  /**
   * Runs `send`, which must send the call's request before it returns (the SDK's `request` sends
   * synchronously), and routes the progress of the request it sent to `route`. Returns what `send`
   * returned and `close`, which ends the route (call it when the call ends, however it ends).
   */
  open<T>(route: ProgressRoute, send: () => T): { sending: T; close: () => void } {
    const opening: { route: ProgressRoute; token?: string | number } = { route };
    this.opening = opening;
    let sending: T;
    try {
      sending = send();
    } finally {
      this.opening = undefined;
    }
    return {
      sending,
      close: () => {
        if (opening.token !== undefined && this.routes.get(opening.token) === route) {
          this.routes.delete(opening.token);
        }
      },
    };
  }

  /** For the transport's `send`: a `tools/call` request sent while a route opens takes its token. */
  sent(message: JSONRPCMessage): void {
    const opening = this.opening;
    if (opening === undefined || !('method' in message) || message.method !== 'tools/call') return;
    const meta = isPlainObject(message.params) ? message.params._meta : undefined;
    const token = isPlainObject(meta) ? meta.progressToken : undefined;
    if (typeof token !== 'string' && typeof token !== 'number') return;
    opening.token = token;
    this.routes.set(token, opening.route);
  }

  /** For the transport's `onmessage`: passes a progress notification to its call's route at once. */
  received(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'notifications/progress' || 'id' in message) return;
    if (!isPlainObject(message.params)) return;
    const token = message.params.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number') return;
    this.routes.get(token)?.(message.params);
  }
}
