import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser } from './__fixtures__/console-browser';

// A daemon whose commands are not sandboxed says so on every page of the console, with its reason
// (from /healthz); a sandboxed one shows nothing (console-smoke.test.ts).

describe('the console of a daemon whose commands are not sandboxed', () => {
  let bed: ConsoleBrowser;

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({
      prefix: 'console-sandbox',
      script: () => ({ text: 'ok' }),
      settings: { categories: { computer: { homeRoot: 'homes', sandbox: 'off' } } },
    });
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('shows a line saying so under the navigation, on every page', async () => {
    const page = await bed.signedInPage(BEARER_TOKEN);
    const banner = page.locator('output.sandbox-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toBe("Sandbox: commands are not sandboxed: the sandbox mode is 'off'");
    await page.getByRole('link', { name: 'Tools' }).click();
    await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
    expect(await banner.isVisible()).toBe(true);
    await bed.screenshot(page, 'sandbox-off');
    expect(page.url()).toBe(`${bed.url}/#/tools`);
  });
});
