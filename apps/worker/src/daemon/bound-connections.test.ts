import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { boundConnections } from './bound-connections';

/** Connects to `port` and resolves once the connection is closed (by either side), with how. */
function connectAndWait(port: number): { socket: Socket; closed: Promise<'closed'> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.resume();
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve('closed'))) };
}

describe('the bound of open connections', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('closes connections over the bound at once, logging the first and then the count when it takes them again', async () => {
    const lines: string[] = [];
    const held: Socket[] = [];
    server = createServer((socket) => {
      held.push(socket);
    });
    boundConnections(server, 1, (line) => lines.push(line));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };

    const first = connectAndWait(port);
    await new Promise((resolve) => first.socket.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Over the bound: closed by the server, twice over.
    await connectAndWait(port).closed;
    await connectAndWait(port).closed;
    expect(lines).toEqual([
      "switchyard serve: 1 connection(s) open, as many as this process's open-file limit leaves room for: closing new ones unanswered until some close (raise ulimit -n)",
    ]);
    expect(held).toHaveLength(1);

    for (const socket of held) socket.destroy();
    await first.closed;
    const again = connectAndWait(port);
    await new Promise((resolve) => again.socket.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(held).toHaveLength(2);
    expect(lines.at(-1)).toBe(
      'switchyard serve: taking connections again after closing 2 unanswered (open-file limit)',
    );
    again.socket.destroy();
    for (const socket of held) socket.destroy();
  });
});
