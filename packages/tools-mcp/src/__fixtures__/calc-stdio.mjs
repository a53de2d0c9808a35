// The calc server over stdio, as a client spawns it. With CALC_ONE_WRITE_PER_TICK=1 every message of
// one event-loop turn goes out in one write, so a client reads them as one chunk (as it often does
// from a busy server): a progress notification and the result after it then arrive together.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCalcServer } from './calc-server.mjs';

function oneWritePerTick(out) {
  let pending = '';
  return {
    write(text) {
      if (pending === '') {
        setImmediate(() => {
          const all = pending;
          pending = '';
          out.write(all);
        });
      }
      pending += text;
      return true;
    },
  };
}

const stdout = process.env.CALC_ONE_WRITE_PER_TICK === '1' ? oneWritePerTick(process.stdout) : process.stdout;
await createCalcServer({ tools: process.env.CALC_NO_TOOLS !== '1' }).connect(
  new StdioServerTransport(process.stdin, stdout),
);
