import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { INFO_FD, REPORT_FD } from './sandbox-init';

/** What the sandbox's init and bubblewrap report, as they report it. */
export interface InitReportHandlers {
  /** bubblewrap's `{"child-pid": N}` on fd 4: the init, as the worker's PID namespace numbers it. */
  initPid(pid: number): void;
  /** The init runs: the sandbox is set up. */
  ready(): void;
  /** The command's shell ended with this status. */
  exit(code: number): void;
  /** The shell left this many processes running. */
  left(count: number): void;
  /** The command's processes wrote this many bytes to disk. */
  wrote(bytes: number): void;
}

/**
 * Calls `onLine` for each complete line of a small control stream. Lines are bounded (4 KiB): the
 * command can reach the init's report pipe too (`/proc/1/fd/3` is its own user's), so what comes is
 * short by contract, not by trust; a forged line can only misreport the command's own end.
 */
function readLines(stream: Readable | null | undefined, onLine: (line: string) => void): void {
  if (stream === null || stream === undefined) return;
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
    if (buffered.length > 4096) buffered = '';
  });
  stream.on('error', () => undefined);
}

/**
 * Reads bubblewrap's info (fd 4) and the init's reports (fd 3: `ready`, `exit N`, `left N`,
 * `wrote N`, see `SANDBOX_INIT_SCRIPT`) of a sandboxed command, calling the handler of each.
 * Resolves `reportClosed` when the report pipe closes: the init's last line comes just before it
 * exits, so its end is read to the pipe's end.
 */
export function readInitReports(
  child: ChildProcess,
  handlers: InitReportHandlers,
): { reportClosed: Promise<void> } {
  let infoText = '';
  let initPid: number | undefined;
  const infoStream = child.stdio[INFO_FD] as Readable | null | undefined;
  infoStream?.setEncoding('utf8');
  infoStream?.on('data', (chunk: string) => {
    if (initPid !== undefined || infoText.length > 4096) return;
    infoText += chunk;
    // bubblewrap's own JSON, e.g. {"child-pid": 12345, "cgroup-namespace": ...}.
    const match = /"child-pid"\s*:\s*(\d+)/.exec(infoText);
    if (match !== null) {
      initPid = Number(match[1]);
      handlers.initPid(initPid);
    }
  });
  infoStream?.on('error', () => undefined);
  const reportStream = child.stdio[REPORT_FD] as Readable | null | undefined;
  const reportClosed = new Promise<void>((resolve) => {
    if (reportStream === null || reportStream === undefined) resolve();
    else reportStream.once('close', () => resolve());
  });
  readLines(reportStream, (line) => {
    if (line === 'ready') {
      handlers.ready();
      return;
    }
    const [word, value] = line.split(' ');
    const number = Number(value);
    if (!Number.isInteger(number)) return;
    if (word === 'exit') handlers.exit(number);
    else if (word === 'left') handlers.left(number);
    else if (word === 'wrote') handlers.wrote(number);
  });
  return { reportClosed };
}
