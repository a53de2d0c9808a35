// The hostile server over streamable HTTP on 127.0.0.1 (port 0); prints `PORT <n>` once listening.
// Each POST is answered as an event stream (so a call can stream, and progress can come first);
// the standing GET stream is refused (405) unless HOSTILE_ATTACK is `endless-event`.
import { createServer } from 'node:http';
import { countRequest, createHostileServer } from './hostile-server.mjs';

function writer(response) {
  let gone = false;
  response.on('close', () => {
    gone = true;
  });
  return (text) => {
    if (gone || response.destroyed) return Promise.resolve(false);
    if (response.write(text)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        response.off('drain', done);
        response.off('close', done);
        resolve(!gone && !response.destroyed);
      };
      response.on('drain', done);
      response.on('close', done);
    });
  };
}

const http = createServer((request, response) => {
  if (request.method === 'GET') {
    countRequest('GET');
    if (process.env.HOSTILE_ATTACK !== 'endless-event') {
      response.writeHead(405).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const write = writer(response);
    (async () => {
      if (!(await write('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"')))
        return;
      const piece = 'e'.repeat(64 * 1024);
      while (await write(piece)) {}
    })();
    return;
  }
  if (request.method !== 'POST') {
    response.writeHead(405).end();
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    // HOSTILE_HTTP_JSON=1: answers are plain JSON bodies (a streamed answer is one body without end).
    const json = process.env.HOSTILE_HTTP_JSON === '1';
    response.writeHead(200, { 'content-type': json ? 'application/json' : 'text/event-stream' });
    const write = writer(response);
    const event = (text) => (json ? write(text) : write(`event: message\ndata: ${text}\n\n`));
    const server = createHostileServer({
      write: async (text) => {
        await event(text);
        response.end();
      },
      openStream: () => ({
        piece: (() => {
          let first = true;
          return (text) => {
            const head = first && !json ? 'event: message\ndata: ' : '';
            first = false;
            return write(head + text);
          };
        })(),
        end: async () => {
          if (!json) await write('\n\n');
          response.end();
        },
      }),
      notify: (notification) => {
        if (json || response.destroyed || response.writableEnded) return false;
        event(JSON.stringify({ jsonrpc: '2.0', ...notification }));
        return true;
      },
    });
    server.handle(message).catch((error) => process.stderr.write(`${error.stack}\n`));
  });
});

http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${http.address().port}\n`);
});
