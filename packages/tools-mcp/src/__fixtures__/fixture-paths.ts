import { fileURLToPath } from 'node:url';

/** Absolute path of the calc server over stdio. */
export const calcStdioServer = fileURLToPath(new URL('./calc-stdio.mjs', import.meta.url));
/** Absolute path of the calc server over streamable HTTP (prints `PORT <n>`). */
export const calcHttpServer = fileURLToPath(new URL('./calc-http.mjs', import.meta.url));
/** Absolute path of the `add` tool's input schema, exactly as the server sends it. */
export const addInputSchemaFile = fileURLToPath(new URL('./add-input-schema.json', import.meta.url));
/** Absolute path of the hostile server over stdio (its listing attack from `HOSTILE_ATTACK`). */
export const hostileStdioServer = fileURLToPath(new URL('./hostile-stdio.mjs', import.meta.url));
/** Absolute path of the hostile server over streamable HTTP (prints `PORT <n>`). */
export const hostileHttpServer = fileURLToPath(new URL('./hostile-http.mjs', import.meta.url));
