import { SwitchyardError } from '@switchyard/core';
import { buildConnector } from 'undici';
import { checkHost } from './check-host';
import type { GuardPolicy } from './guard-policy';

/** A connection the guard refused at connect time (after the URL check had passed, or without one). */
export class ConnectRefusedError extends SwitchyardError {
  /** Why the connection was refused. */
  readonly reason: string;

  constructor(reason: string) {
    super(`connection refused by the network guard: ${reason}`);
    this.reason = reason;
    this.markAs('ConnectRefusedError');
  }

  static override isInstance(value: unknown): value is ConnectRefusedError {
    return SwitchyardError.hasMark(value, 'ConnectRefusedError');
  }
}

/**
 * Wraps an undici connector so every new connection is checked where it is made: IP literals
 * directly, names resolved here with `policy.lookup` and every address checked, then the socket
 * is opened to a checked address while `host` (and so the Host header and TLS server name) stays
 * the original name. undici's own `connect.lookup` is never consulted for IP-literal URLs, which
 * is why the check lives in the connector itself.
 *
 * Contract: a refused host calls back with `ConnectRefusedError` before the base connector is
 * called at all; addresses are tried in order, the next one only after a connect error.
 */
export function createGuardedConnector(
  policy: GuardPolicy,
  base: buildConnector.connector = buildConnector({}),
): buildConnector.connector {
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const connectTo = (addresses: readonly string[], index: number): void => {
      base({ ...options, hostname: addresses[index] ?? '' }, (error, socket) => {
        if (error && index + 1 < addresses.length) connectTo(addresses, index + 1);
        else if (error) callback(error, null);
        else callback(null, socket as NonNullable<typeof socket>);
      });
    };
    checkHost(options.hostname, port, policy)
      .then((check) => {
        if (!check.ok) {
          callback(new ConnectRefusedError(`${options.hostname}: ${check.reason}`), null);
          return;
        }
        connectTo(
          check.addresses.map(({ address }) => address),
          0,
        );
      })
      .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null));
  };
}
