import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type FakeResponsesServer,
  type FakeResponsesServerOptions,
  startFakeResponsesServer,
} from '@switchyard/testkit';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { ServeDaemon } from './serve-daemon';

/** The browser the console tests drive: Debian's `chromium` unless `SWITCHYARD_CHROMIUM` names another. */
export const chromiumPath = process.env.SWITCHYARD_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Where `screenshot(name)` writes `<name>.png`. With `SWITCHYARD_UPDATE_SCREENSHOTS=1`: the worker's
 * docs (`apps/worker/docs/console`, committed and linked from the worker's README, which is where a
 * reader of the daemon looks for them); otherwise a folder under the system's temporary folder, so an
 * ordinary run does not rewrite committed images with new ids and times.
 */
export const screenshotFolder =
  process.env.SWITCHYARD_UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../../../worker/docs/console', import.meta.url))
    : path.join(os.tmpdir(), 'switchyard-console-screenshots');

/** The bearer token of the daemon with tokens (any 16 or more characters will do for a test). */
export const BEARER_TOKEN = 'console-test-bearer-token-0001';
/** Its read-only token: `GET` only. */
export const READ_ONLY_TOKEN = 'console-test-read-only-token-02';

/** The page size of every page: a laptop screen. */
export const VIEWPORT = { width: 1366, height: 768 };

/** How a `ConsoleBrowser` starts. */
export interface ConsoleBrowserOptions {
  /** Names the temporary folders (`switchyard-<prefix>-…`). */
  prefix: string;
  /** The fake model's script, shared by both daemons (see the testkit's `FakeResponsesServerOptions`). */
  script: FakeResponsesServerOptions['script'];
  /**
   * More of `switchyard.config.json` (`approvals`, `categories`, ...), over the fixture's own:
   * `serve` is merged with its port, agents, timings and the read-only token's variable.
   */
  settings?: Record<string, unknown>;
  /** The agents served (default `['console']`); the first is the API's default. */
  agents?: string[];
  /** More `serve` arguments for the daemons (e.g. `['--scripted-model']`). */
  serveArguments?: readonly string[];
}

// Quick timings so that what a test waits for happens within a second or so.
const TIMINGS = { heartbeatMs: 200, staleTurnMs: 5_000, pollSeconds: 0.5, tickMs: 200, graceMs: 1_000 };

/**
 * The console's browser-test bed: a headless chromium (playwright-core, the system binary), a real
 * `switchyard serve` child (`ServeDaemon`: the worker's built CLI) on a fresh PGlite database with the
 * testkit's fake model, with a bearer and a read-only token; on request a second daemon without tokens
 * on loopback (`openDaemon()`).
 *
 * Contract: `start` resolves once the daemon listens and the browser runs; `close` closes every page,
 * the browser, stops the daemons, removes their folders and closes the fake model, whatever failed
 * before. One per test file.
 *
 * @example
 * const bed = await ConsoleBrowser.start({ prefix: 'console-turns', script: () => ({ text: 'ok' }) });
 * const page = await bed.signedInPage(BEARER_TOKEN);
 * await page.getByRole('heading', { name: 'Turns' }).waitFor();
 * await bed.screenshot(page, 'turns');
 * await bed.close();
 */
export class ConsoleBrowser {
  #open: Promise<ServeDaemon> | undefined;
  readonly #contexts: BrowserContext[] = [];

  private constructor(
    /** The browser. */
    readonly browser: Browser,
    /** The daemon with tokens (`BEARER_TOKEN`, `READ_ONLY_TOKEN`). */
    readonly daemon: ServeDaemon,
    /** The fake model both daemons talk to. */
    readonly model: FakeResponsesServer,
    private readonly options: ConsoleBrowserOptions,
  ) {}

  /** Starts the daemon with tokens and the browser. */
  static async start(options: ConsoleBrowserOptions): Promise<ConsoleBrowser> {
    const model = await startFakeResponsesServer({ script: options.script });
    let daemon: ServeDaemon | undefined;
    try {
      daemon = await startDaemon(options.prefix, model, options, {
        SWITCHYARD_SERVE_TOKEN: BEARER_TOKEN,
        SWITCHYARD_READ_TOKEN: READ_ONLY_TOKEN,
      });
      const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
      return new ConsoleBrowser(browser, daemon, model, options);
    } catch (error) {
      await daemon?.stop();
      await model.close();
      throw error;
    }
  }

  /** The URL of the daemon with tokens. */
  get url(): string {
    return this.daemon.url;
  }

  /**
   * A second daemon, without tokens, on loopback (its own folder and PGlite database, the same fake
   * model), started on the first call.
   */
  openDaemon(): Promise<ServeDaemon> {
    this.#open ??= startDaemon(`${this.options.prefix}-open`, this.model, this.options, {});
    return this.#open;
  }

  /** A new page (its own context: its own session storage) at 1366x768 in the light scheme. */
  async newPage(): Promise<Page> {
    const context = await this.browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
    this.#contexts.push(context);
    return context.newPage();
  }

  /**
   * A new page on the console of `url` (default: the daemon with tokens), signed in with `token`
   * through the sign-in form when given. Resolves once the navigation shows.
   */
  async signedInPage(token: string | undefined, url = this.url, hash = '#/turns'): Promise<Page> {
    const page = await this.newPage();
    await page.goto(`${url}/${hash}`);
    if (token !== undefined) {
      await page.getByLabel('Bearer or read-only token').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    return page;
  }

  /** Writes the page as `<screenshotFolder>/<name>.png` (the viewport, 1366x768). */
  async screenshot(page: Page, name: string): Promise<string> {
    await mkdir(screenshotFolder, { recursive: true });
    const file = path.join(screenshotFolder, `${name}.png`);
    await page.screenshot({ path: file });
    return file;
  }

  /** The token the page's tab keeps (`sessionStorage`), or null. */
  storedToken(page: Page): Promise<string | null> {
    // The page's own global, typed here without the DOM library the tests do not load (they run in Node).
    return page.evaluate(() =>
      (
        globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }
      ).sessionStorage.getItem('switchyard.token'),
    );
  }

  /** Closes the pages and the browser, stops the daemons and removes their folders. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#contexts.map((context) => context.close()));
    await this.browser.close().catch(() => {});
    const open = await this.#open?.catch(() => undefined);
    await Promise.all([this.daemon.stop(), open?.stop()]);
    await this.model.close();
  }
}

function startDaemon(
  prefix: string,
  model: { baseURL: string },
  options: ConsoleBrowserOptions,
  tokens: Record<string, string>,
): Promise<ServeDaemon> {
  const { serve, ...settings } = options.settings ?? {};
  return ServeDaemon.start({
    prefix,
    modelURL: model.baseURL,
    environment: tokens,
    ...(options.serveArguments === undefined ? {} : { serveArguments: options.serveArguments }),
    settings: (folder) => ({
      categories: { computer: { homeRoot: path.join(folder, 'homes') }, workflow: {} },
      ...settings,
      serve: {
        agents: options.agents ?? ['console'],
        port: 0,
        ...TIMINGS,
        ...('SWITCHYARD_READ_TOKEN' in tokens ? { readTokenEnv: 'SWITCHYARD_READ_TOKEN' } : {}),
        ...(serve as Record<string, unknown> | undefined),
      },
    }),
  });
}
