import { type Context, Hono } from 'hono';
import type { ConsoleSite } from '../../console-files';
import { HttpError } from '../http-error';
import type { ApiBindings } from '../route-builders';
import { refuseOtherMethods } from '../route-registrars';
import { isConsolePath } from './console-paths';

/**
 * The headers of every console file: the page loads only its own scripts, styles and images, talks
 * only to this daemon, and cannot be framed; nothing it links to learns where it came from.
 */
const CONSOLE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/**
 * The operator console's sub-app: its files at `/`, `/index.html`, `/assets/*` and the other paths
 * read at start-up (`readConsoleFiles`). Plain routes, not API operations, so the OpenAPI document
 * leaves them out. Only the paths read at start-up are answered; a request path is never turned into
 * a file-system path.
 *
 * Contract: a turned-off console is a 404 `not_found`, one that was not built a 404
 * `console_not_built` naming the folder looked in; another method on `/` or `/index.html` is a 405.
 */
export function createConsoleApp(site: ConsoleSite): Hono<ApiBindings> {
  const app = new Hono<ApiBindings>();
  const answerConsole = (c: Context<ApiBindings>) => {
    if (site.status === 'disabled') {
      throw new HttpError(404, 'not_found', 'the console is turned off (serve.console: false)');
    }
    if (site.status === 'not-built') {
      throw new HttpError(
        404,
        'console_not_built',
        `the console was not built (no index.html in ${site.directory}): run \`pnpm exec turbo run build --filter=@switchyard/worker...\`, which builds apps/console and copies it into the worker's dist/console`,
      );
    }
    const file = site.files.get(c.req.path);
    if (file === undefined) throw new HttpError(404, 'not_found', `no route for ${c.req.path}`);
    return c.body(file.bytes as Uint8Array<ArrayBuffer>, 200, {
      ...CONSOLE_HEADERS,
      'content-type': file.contentType,
      'content-length': String(file.bytes.byteLength),
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  };
  app.get('/', answerConsole);
  app.get('/index.html', answerConsole);
  app.get('/assets/*', answerConsole);
  if (site.status === 'served') {
    for (const path of site.files.keys()) {
      if (!isConsolePath(path, { status: 'disabled' })) app.get(path, answerConsole);
    }
  }
  refuseOtherMethods(app, [
    ['/', ['GET', 'HEAD']],
    ['/index.html', ['GET', 'HEAD']],
  ]);
  return app;
}
