import type { ConsoleSite } from '../../console-files';

/**
 * Whether a `GET` of `path` asks for the operator console (the page or one of its files), not the
 * API: such requests need no token and are never shed (they hold no data).
 */
export function isConsolePath(path: string, site: ConsoleSite): boolean {
  if (path === '/' || path === '/index.html' || path.startsWith('/assets/')) return true;
  return site.status === 'served' && site.files.has(path);
}
