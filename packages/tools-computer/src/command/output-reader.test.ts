import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { OutputReader, type OutputReceiver } from './output-reader';

/** Runs `script` with sh, its stdout and stderr the reader's command end, and releases that end. */
async function runWith(script: string): Promise<{ output: OutputReader; child: ChildProcess }> {
  const output = await OutputReader.open();
  const child = spawn('sh', ['-c', script], {
    stdio: ['ignore', output.commandEnd, output.commandEnd],
  });
  output.releaseCommandEnd();
  return { output, child };
}

/** Every byte a receiver got, copied. */
function collecting(): { receiver: OutputReceiver; text: () => string } {
  const parts: Buffer[] = [];
  return {
    receiver: (bytes) => {
      parts.push(Buffer.from(bytes));
      return undefined;
    },
    text: () => Buffer.concat(parts).toString('utf8'),
  };
}

describe('a command output reader', () => {
  it('reads a flood into one buffer it allocated once: every read hands over the same memory', async () => {
    const { output } = await runWith('head -c 20000000 /dev/zero');
    const memory = new Set<ArrayBufferLike>();
    let total = 0;
    let reads = 0;
    output.listen((bytes) => {
      memory.add(bytes.buffer);
      total += bytes.length;
      reads += 1;
      return undefined;
    });
    await output.closed;
    expect(total).toBe(20_000_000);
    // Hundreds of reads (at most 64 KiB each), all into the same buffer.
    expect(reads).toBeGreaterThan(300);
    expect(memory.size).toBe(1);
  });

  it('reads nothing more while the receiver holds the bytes, and loses none', async () => {
    const { output } = await runWith('seq 1 200000');
    const parts: Buffer[] = [];
    let holding = false;
    let readWhileHeld = 0;
    let calls = 0;
    output.listen((bytes) => {
      if (holding) readWhileHeld += 1;
      calls += 1;
      if (calls % 3 !== 0) {
        parts.push(Buffer.from(bytes));
        return undefined;
      }
      // Hold the bytes a while, as a write to disk does, and copy them only when done.
      holding = true;
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          parts.push(Buffer.from(bytes));
          holding = false;
          resolve();
        }, 2),
      );
    });
    await output.closed;
    const expected = `${Array.from({ length: 200_000 }, (_, index) => index + 1).join('\n')}\n`;
    expect(calls).toBeGreaterThan(3);
    expect(readWhileHeld).toBe(0);
    expect(Buffer.concat(parts).toString('latin1')).toBe(expected);
  });

  it("keeps what a command wrote before anyone listened, and closes when the command's end is closed", async () => {
    const { output, child } = await runWith('echo early');
    await once(child, 'exit');
    const collected = collecting();
    output.listen(collected.receiver);
    await output.closed;
    expect(collected.text()).toBe('early\n');
  });

  it('carries stdout and stderr in the order written, both blocking in the command as a pipe of spawn is', async () => {
    const { output } = await runWith(
      [
        'echo one',
        'echo two >&2',
        `python3 -c "import fcntl, os; print('nonblocking', fcntl.fcntl(1, fcntl.F_GETFL) & os.O_NONBLOCK, fcntl.fcntl(2, fcntl.F_GETFL) & os.O_NONBLOCK)"`,
        'echo three',
      ].join('; '),
    );
    const collected = collecting();
    output.listen(collected.receiver);
    await output.closed;
    expect(collected.text()).toBe('one\ntwo\nnonblocking 0 0\nthree\n');
  });

  it('closes when destroyed, though a process still holds the command end open', async () => {
    const { output, child } = await runWith('exec sleep 30');
    output.listen(collecting().receiver);
    output.destroy();
    await output.closed;
    child.kill('SIGKILL');
    await once(child, 'exit');
  });
});
