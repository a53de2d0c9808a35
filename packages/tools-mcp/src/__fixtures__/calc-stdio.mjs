// The calc server over stdio, as a client spawns it.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCalcServer } from './calc-server.mjs';

await createCalcServer({ tools: process.env.CALC_NO_TOOLS !== '1' }).connect(new StdioServerTransport());
