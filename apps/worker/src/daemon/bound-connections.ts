import type { Server } from 'node:net';

/**
 * Keeps the HTTP API's open connections under `maxConnections`, so the process never runs out of
 * file descriptors, and says so in the log when it drops one.
 *
 * Why: a Node process that reaches its open-file limit cannot answer at all. libuv, finding
 * `accept()` failing with EMFILE, closes a file it keeps in reserve, accepts every connection
 * waiting in the kernel's queue and closes each at once, so every waiting client gets a connection
 * reset, and nothing is logged (measured: 2,000 `POST /v1/turns` at once to a `serve` under
 * `ulimit -n 1024` on PostgreSQL: 1,006 resets, all at once, before this bound). Node does not let a
 * server stop accepting for a while, so a connection over the bound is still accepted and closed
 * (Node's `maxConnections`): its client is reset too, but only that one, the process keeps the
 * files to answer everyone else, and the log counts them. The cure is an open-file limit with room
 * for the connections a burst brings (`LimitNOFILE=`, `ulimit -n`): this is the safety net.
 *
 * Contract: logs one line at the first dropped connection and one, with their count, at the next
 * connection taken again; never throws.
 */
export function boundConnections(server: Server, maxConnections: number, log: (line: string) => void): void {
  server.maxConnections = maxConnections;
  let dropped = 0;
  server.on('drop', () => {
    if (dropped === 0) {
      log(
        `switchyard serve: ${maxConnections} connection(s) open, as many as this process's open-file limit leaves room for: closing new ones unanswered until some close (raise ulimit -n)`,
      );
    }
    dropped += 1;
  });
  server.on('connection', () => {
    if (dropped === 0) return;
    log(`switchyard serve: taking connections again after closing ${dropped} unanswered (open-file limit)`);
    dropped = 0;
  });
}
