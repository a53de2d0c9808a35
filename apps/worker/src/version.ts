import { createRequire } from 'node:module';

/** The worker's version, from its package.json (`switchyard --version`, the OpenAPI document). */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;
