import { buildConnector } from 'undici';

/**
 * A connector for tests: records every address a socket would be opened to and opens it only for
 * 127.0.0.1 or ::1. Any other address fails the connection without touching the network, so even
 * a broken guard (or a mutation of it) cannot send test traffic off this machine.
 */
export function loopbackOnlyConnector(options: buildConnector.BuildOptions = {}) {
  const attempts: string[] = [];
  const base = buildConnector(options);
  const connector: buildConnector.connector = (options, callback) => {
    attempts.push(`${options.hostname}:${options.port}`);
    if (options.hostname !== '127.0.0.1' && options.hostname !== '::1') {
      callback(new Error(`test connector: refusing to open a socket to ${options.hostname}`), null);
      return;
    }
    base(options, callback);
  };
  return { attempts, connector };
}
