import type { ProgressOutput } from './turn-progress';

/**
 * Wraps a process stream so that a reader that went away (`switchyard tools | head -1`: EPIPE) ends
 * the output quietly: later writes are dropped instead of raising an unhandled `error` event with a
 * stack trace, and the command runs to its end (closing what it opened, removing its temporary
 * folders) with its own exit code.
 */
export function quietOnClosedPipe(stream: NodeJS.WriteStream): ProgressOutput {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
      closed = true;
      return;
    }
    throw error;
  });
  return {
    write: (text: string) => {
      if (closed || stream.destroyed) return false;
      return stream.write(text);
    },
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
  };
}
