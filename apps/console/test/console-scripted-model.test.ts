import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser } from './__fixtures__/console-browser';

// A daemon started with `switchyard serve --scripted-model` says so on every page of the console (from
// /healthz); a daemon on a configured model shows no such line (console-smoke.test.ts).

describe('the console of a daemon on the built-in scripted model', () => {
  let bed: ConsoleBrowser;

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({
      prefix: 'console-scripted',
      // The fixture's fake model is configured, but --scripted-model replaces it: it must never be asked.
      script: () => ({ httpStatus: 500, message: 'the configured model must not be used' }),
      serveArguments: ['--scripted-model'],
    });
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('shows a line saying so under the navigation, on every page', async () => {
    const page = await bed.signedInPage(BEARER_TOKEN);
    const banner = page.locator('output.scripted-model-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(
      /^Scripted model: the built-in scripted model \(--scripted-model\): every answer is canned/,
    );
    await page.getByRole('link', { name: 'Tools' }).click();
    await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
    expect(await banner.isVisible()).toBe(true);
    await bed.screenshot(page, 'scripted-model');
    expect(bed.model.requests).toEqual([]);
  });
});
