import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliPath } from '../../__fixtures__/run-cli';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A real `switchyard serve` child process (the built CLI, as `run-cli` runs it). */
export class ServeProcess {
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr (its log). */
  log = '';
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Resolves with the HTTP API's URL once the daemon listens. */
  readonly ready: Promise<string>;

  constructor(args: readonly string[], environment: Record<string, string>) {
    this.child = spawn(process.execPath, [cliPath, 'serve', ...args], {
      cwd: packageRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.stderr?.on('data', (chunk: Buffer) => {
        this.log += chunk.toString();
        const url = /listening on (http:\/\/\S+)/.exec(this.log)?.[1];
        if (url !== undefined) resolve(url);
      });
      void this.exited.then((code) =>
        reject(new Error(`serve exited (${String(code)}) before listening:\n${this.log}`)),
      );
    });
    this.ready.catch(() => {});
  }

  /** Sends SIGTERM and waits for the exit (SIGKILL after `timeoutMs`). */
  async terminate(timeoutMs = 60_000): Promise<number | NodeJS.Signals | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
