// The hostile server over stdio: one message per line.
import { createInterface } from 'node:readline';
import { createHostileServer } from './hostile-server.mjs';

let gone = false;
process.stdout.on('error', () => {
  gone = true;
  process.exit(0);
});
process.stdin.on('end', () => process.exit(0));

function piece(text) {
  if (gone) return Promise.resolve(false);
  if (process.stdout.write(text)) return Promise.resolve(true);
  return new Promise((resolve) => process.stdout.once('drain', () => resolve(!gone)));
}

let lines;
const server = createHostileServer({
  write: (text) => piece(`${text}\n`),
  rawLine: (text) => piece(`${text}\n`),
  // Reads nothing more: what the client sends piles up in the pipe and in its own buffer.
  stopReading: () => {
    lines.pause();
    process.stdin.pause();
  },
  openStream: () => ({ piece, end: () => piece('\n') }),
  notify: (message) => {
    if (gone) return false;
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    return true;
  },
});

lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on('line', (line) => {
  server.handle(JSON.parse(line)).catch((error) => process.stderr.write(`${error.stack}\n`));
});
