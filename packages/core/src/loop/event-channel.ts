import type { AgentEvent } from '../events/agent-event';

/** A single-consumer event queue: the loop pushes, the iterator pulls, nothing is dropped. */
export class EventChannel {
  private buffer: AgentEvent[] = [];
  private head = 0;
  private closed = false;
  private waiter: ((result: IteratorResult<AgentEvent>) => void) | undefined;
  private iterated = false;

  /** Delivers an event to the waiting iterator, or buffers it; dropped once the channel is closed. */
  push(event: AgentEvent): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter({ value: event, done: false });
    } else {
      this.buffer.push(event);
    }
  }

  /** Ends the stream: the iterator finishes once it has taken what is buffered. */
  close(): void {
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  /** The run's one iterator; a second call throws. */
  iterator(): AsyncIterator<AgentEvent> {
    if (this.iterated) throw new Error('runAgentLoop: a run can be iterated only once');
    this.iterated = true;
    return {
      next: () => {
        if (this.head < this.buffer.length) {
          const value = this.buffer[this.head] as AgentEvent;
          this.head += 1;
          if (this.head === this.buffer.length) {
            this.buffer = [];
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiter = resolve;
        });
      },
      return: () => {
        // Leaving the loop early stops delivery, not the turn: abort through `signal` for that.
        this.closed = true;
        this.buffer = [];
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
