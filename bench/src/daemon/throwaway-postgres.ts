// A throw-away PostgreSQL cluster for the daemon benchmarks, started the way the test suite starts
// one (scripts/test-postgres.sh).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processTreeCpuMs } from './process-cpu';

const TEST_POSTGRES = fileURLToPath(new URL('../../../scripts/test-postgres.sh', import.meta.url));

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A throw-away PostgreSQL cluster. */
export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** Whether `pg_stat_statements` is preloaded (and created in the `postgres` database). */
  readonly statements: boolean;
  /**
   * CPU time of the server so far, ms: the postmaster and its children (backends, background
   * workers) alive now; a backend that has exited no longer counts, so read it around work done
   * on connections that stay open.
   */
  cpuMs(): number;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Restarts the cluster in `directory` with `shared_preload_libraries=pg_stat_statements`; whether
 * that worked (the extension may not be installed). The script takes no server settings: the
 * preload is appended to the cluster's own configuration (pg_ctl reuses the options it was started with).
 */
function preloadStatements(directory: string): boolean {
  const conf = path.join(directory, 'data', 'postgresql.conf');
  try {
    const asOwner = (command: string) =>
      process.getuid?.() === 0
        ? execFileSync('su', ['postgres', '-s', '/bin/bash', '-c', command], { stdio: 'ignore' })
        : execFileSync('bash', ['-c', command], { stdio: 'ignore' });
    asOwner(
      `echo "shared_preload_libraries = 'pg_stat_statements'" >> '${conf}' && pg_ctl -D '${path.join(directory, 'data')}' -w restart -m fast >/dev/null`,
    );
    return true;
  } catch {
    return false;
  }
}

/** The server's CPU time so far (its postmaster's and the children's), ms; NaN once it is gone. */
function serverCpuMs(directory: string): number {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(path.join(directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return Number.NaN;
  }
  return processTreeCpuMs(postmaster);
}

/**
 * Starts a throw-away PostgreSQL cluster on a free port with `scripts/test-postgres.sh` (as the
 * test suite does: as the `postgres` user when run as root, fsync off), or returns the reason it
 * cannot (no server binaries). With `statements`, the cluster is restarted with
 * `shared_preload_libraries=pg_stat_statements` when the extension is installed.
 */
export async function startThrowawayPostgres(
  options: { statements?: boolean } = {},
): Promise<ThrowawayPostgres | { skipped: string }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-pg-'));
  const port = await freePort();
  let url: string;
  try {
    url = execFileSync('bash', [TEST_POSTGRES, 'start', directory, String(port)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    return { skipped: stderr || (error as Error).message };
  }
  const stop = async () => {
    try {
      execFileSync('bash', [TEST_POSTGRES, 'stop', directory], { stdio: 'ignore' });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  };
  const statements = options.statements === true && preloadStatements(directory);
  return { url, statements, cpuMs: () => serverCpuMs(directory), stop };
}
