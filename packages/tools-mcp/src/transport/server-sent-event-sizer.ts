const LF = 0x0a;
const CR = 0x0d;

/**
 * Measures the events of a `text/event-stream` as its bytes arrive, without holding them: an event
 * ends at an empty line (`\n\n`, `\r\r`, `\r\n\r\n` and mixes), and its size counts every byte of its
 * lines. Linear in the bytes pushed, constant memory.
 */
export class ServerSentEventSizer {
  private eventBytes = 0;
  private lineBytes = 0;
  private afterCR = false;

  /** Takes the next chunk; returns the size of the largest event seen in it (the open one included). */
  push(chunk: Uint8Array): number {
    let largest = 0;
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index] as number;
      if (byte === LF && this.afterCR) {
        // The LF of a CRLF: the line already ended at the CR.
        this.afterCR = false;
        this.eventBytes += 1;
        continue;
      }
      this.afterCR = byte === CR;
      this.eventBytes += 1;
      if (byte === LF || byte === CR) {
        if (this.lineBytes === 0) {
          // An empty line ends the event.
          if (this.eventBytes > largest) largest = this.eventBytes;
          this.eventBytes = 0;
        }
        this.lineBytes = 0;
      } else {
        this.lineBytes += 1;
      }
      if (this.eventBytes > largest) largest = this.eventBytes;
    }
    return largest;
  }
}
