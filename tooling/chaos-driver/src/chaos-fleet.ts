import { type ChildProcess, spawn } from 'node:child_process';

/** The most of a process's log a slot keeps (the end of it), for a failure's message. */
const LOG_BYTES = 64 * 1024;

/** One `switchyard serve` child process of the fleet. */
export class ChaosProcess {
  readonly child: ChildProcess;
  /** The end of what it wrote to stderr. */
  log = '';
  /** Resolves with the exit code or signal. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Resolves with the HTTP API's URL once it listens; rejects if it exits first. */
  readonly ready: Promise<string>;
  /** The URL, once ready. */
  url: string | undefined;
  /** The worker id it logged at start, once ready. */
  workerId: string | undefined;

  constructor(cliPath: string, configPath: string, cwd: string, environment: Record<string, string>) {
    // --liftoff-only: a process killed within seconds never gets back what V8's optimising compiler
    // spends on the embedded database's WebAssembly (the worker's own serve tests start it so too).
    this.child = spawn(process.execPath, ['--liftoff-only', cliPath, 'serve', '--config', configPath], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.stderr?.on('data', (chunk: Buffer) => {
        this.log = (this.log + chunk.toString()).slice(-LOG_BYTES);
        if (this.url !== undefined) return;
        const url = /listening on (http:\/\/\S+)/.exec(this.log)?.[1];
        if (url === undefined) return;
        this.url = url;
        this.workerId = /switchyard serve: worker (worker_\S+)/.exec(this.log)?.[1];
        resolve(url);
      });
      void this.exited.then((code) =>
        reject(new Error(`serve exited (${String(code)}) before listening:\n${this.log}`)),
      );
    });
    this.ready.catch(() => {});
  }

  /** Whether it still runs. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILLs it and waits for the exit. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves with the exit. */
  async terminate(timeoutMs: number): Promise<number | NodeJS.Signals | null> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** How a fleet starts its processes. */
export interface ChaosFleetOptions {
  /** The worker's built CLI (`apps/worker/dist/cli.js`). */
  cliPath: string;
  /** The configuration file every process reads. */
  configPath: string;
  /** Their working directory. */
  cwd: string;
  /** Each slot's `OPENAI_BASE_URL` (its own fake server), by slot. */
  baseURLs: readonly string[];
}

/**
 * A fixed number of slots, each running one `switchyard serve` process at a time: a killed slot is
 * started again at once (`kill`). `started` counts every process that ran; the log lines about
 * recovery of all of them are kept (`linesWith`), the rest of their logs is not.
 */
export class ChaosFleet {
  readonly #options: ChaosFleetOptions;
  readonly #slots: ChaosProcess[];
  readonly #kept: string[] = [];
  /** Processes started, restarts included. */
  started = 0;

  constructor(options: ChaosFleetOptions) {
    this.#options = options;
    this.#slots = options.baseURLs.map((_, slot) => this.#start(slot));
  }

  /** Resolves once every slot's process listens. */
  async ready(): Promise<void> {
    await Promise.all(this.#slots.map((serve) => serve.ready));
  }

  /** Slot `slot`'s current process. */
  process(slot: number): ChaosProcess {
    const serve = this.#slots[slot];
    if (serve === undefined) throw new Error(`no fleet slot ${slot}`);
    return serve;
  }

  /** The slots whose process listens now. */
  readySlots(): number[] {
    return this.#slots.flatMap((serve, slot) => (serve.url !== undefined && serve.running ? [slot] : []));
  }

  /** SIGKILLs slot `slot`'s process, starts a new one in its place at once; the kill's time. */
  async kill(slot: number): Promise<number> {
    const victim = this.process(slot);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    this.#slots[slot] = this.#start(slot);
    return killedAt;
  }

  /** Starts a new process in every slot whose process has exited (after `terminate`). */
  restart(): void {
    this.#slots.forEach((serve, slot) => {
      if (!serve.running) this.#slots[slot] = this.#start(slot);
    });
  }

  /** Stops every process (SIGTERM, SIGKILL after `timeoutMs`); their exits. */
  terminate(timeoutMs = 30_000): Promise<Array<number | NodeJS.Signals | null>> {
    return Promise.all(this.#slots.map((serve) => serve.terminate(timeoutMs)));
  }

  /** Log lines of every process so far that contain `text` (kept: lines about turns and recovery). */
  linesWith(text: string): string[] {
    return this.#kept.filter((line) => line.includes(text));
  }

  #keep(serve: ChaosProcess, slot: number): void {
    let rest = '';
    serve.child.stderr?.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (
          /recovery|resum|interrupted|worker worker_|failed|error/i.test(line) &&
          this.#kept.length < 20_000
        ) {
          this.#kept.push(`${new Date().toISOString().slice(11, 23)} slot ${slot}: ${line.slice(0, 400)}`);
        }
      }
    });
  }

  #start(slot: number): ChaosProcess {
    const { cliPath, configPath, cwd, baseURLs } = this.#options;
    this.started += 1;
    const serve = new ChaosProcess(cliPath, configPath, cwd, {
      OPENAI_BASE_URL: baseURLs[slot] ?? '',
      OPENAI_API_KEY: 'test',
      SWITCHYARD_MODEL: 'fake-model',
    });
    this.#keep(serve, slot);
    return serve;
  }
}
