import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RunCommandDetails } from '../command/command-result';
import type { ComputerToolsContext } from '../computer-tools-context';

const fixture = fileURLToPath(new URL('./command-worker.ts', import.meta.url));

/** What the worker answered for one command. */
export interface WorkerResult {
  content: string;
  details: RunCommandDetails;
}

/** How to start a `CommandWorkerProcess`. */
export interface CommandWorkerOptions {
  /** Run it as this uid and gid (through `setpriv`; the test must be root). */
  uid?: number;
  /** Its environment (default: PATH only). */
  env?: Record<string, string>;
  /** Descriptors it inherits, by the number it gets them as (3 and up). */
  inherit?: Record<number, number>;
}

/** A `command-worker.ts` process: one `run_command` per request, its RSS readable from /proc. */
export class CommandWorkerProcess {
  private next = 0;
  private readonly waiting = new Map<number, (line: Record<string, unknown>) => void>();
  private readonly exited: Promise<void>;
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      this.waiting.get(message.id as number)?.(message);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 64 * 1024) this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Starts one, as `options.uid` when given. */
  static start(options: CommandWorkerOptions = {}): CommandWorkerProcess {
    const nodeArgs = ['--import', 'tsx', fixture];
    const [file, args] =
      options.uid === undefined
        ? [process.execPath, nodeArgs]
        : [
            'setpriv',
            [
              `--reuid=${options.uid}`,
              `--regid=${options.uid}`,
              '--clear-groups',
              process.execPath,
              ...nodeArgs,
            ],
          ];
    const highest = Math.max(2, ...Object.keys(options.inherit ?? {}).map(Number));
    const stdio: StdioOptions = Array.from({ length: highest + 1 }, (_, fd) => {
      if (fd <= 2) return 'pipe';
      return options.inherit?.[fd] ?? 'ignore';
    });
    const child = spawn(file, args, {
      cwd: path.dirname(fixture),
      env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio,
    });
    return new CommandWorkerProcess(child);
  }

  /** Its pid. */
  get pid(): number {
    return this.child.pid as number;
  }

  /** Its resident set size now, in bytes (from /proc/<pid>/status). */
  rss(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'latin1');
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0) * 1024;
  }

  /** Runs one command in it and resolves with run_command's result. */
  run(command: string, context: ComputerToolsContext, timeoutMs?: number): Promise<WorkerResult> {
    const id = this.next;
    this.next += 1;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (message) => {
        this.waiting.delete(id);
        if (typeof message.error === 'string') reject(new Error(`the worker failed: ${message.error}`));
        else resolve(message as unknown as WorkerResult);
      });
      void this.exited.then(() =>
        reject(new Error(`the worker exited before answering: ${this.stderr.slice(0, 2000)}`)),
      );
      this.child.stdin?.write(`${JSON.stringify({ id, command, context, timeoutMs })}\n`);
    });
  }

  /**
   * Runs `command` while reading the worker's RSS every 20 ms; resolves with the result and how far
   * the RSS rose above what it was just before.
   */
  async runMeasured(
    command: string,
    context: ComputerToolsContext,
    timeoutMs?: number,
  ): Promise<WorkerResult & { rssGrowth: number }> {
    const before = this.rss();
    let highest = before;
    const timer = setInterval(() => {
      try {
        highest = Math.max(highest, this.rss());
      } catch {
        // Exited: the result says why.
      }
    }, 20);
    try {
      const result = await this.run(command, context, timeoutMs);
      highest = Math.max(highest, this.rss());
      return { ...result, rssGrowth: highest - before };
    } finally {
      clearInterval(timer);
    }
  }

  /** Ends it. */
  async stop(): Promise<void> {
    this.child.stdin?.end();
    await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
