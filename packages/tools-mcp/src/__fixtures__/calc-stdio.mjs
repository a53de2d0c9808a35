// The calc server over stdio, as a client spawns it.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCalcServer } from './calc-server.mjs';

await createCalcServer().connect(new StdioServerTransport());
