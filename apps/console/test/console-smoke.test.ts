import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser } from './__fixtures__/console-browser';

// The console as `switchyard serve` serves it, in a real chromium: the page loads, asks for the token
// (the daemon has one), refuses a wrong one, signs in with the bearer token and shows the Turns page.

describe('the console in a browser', () => {
  let bed: ConsoleBrowser;

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({ prefix: 'console-smoke', script: () => ({ text: 'ok' }) });
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('loads, refuses a wrong token, signs in with the bearer token and shows the Turns page', async () => {
    const page = await bed.newPage();
    await page.goto(`${bed.url}/`);
    await page.getByRole('heading', { name: 'Sign in to Switchyard' }).waitFor();
    await page.getByLabel('Bearer or read-only token').fill('not-the-token-of-this-daemon');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The daemon refused that token').waitFor();
    expect(await bed.storedToken(page)).toBeNull();

    await page.getByLabel('Bearer or read-only token').fill(BEARER_TOKEN);
    const health = page.waitForResponse((response) => response.url().endsWith('/healthz'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Turns', level: 1 }).waitFor();
    expect(await page.getByText('Full access').count()).toBe(1);
    expect(page.url()).toBe(`${bed.url}/#/turns`);
    // The token is in the tab's storage, never in the address.
    expect(page.url()).not.toContain(BEARER_TOKEN);
    expect(await bed.storedToken(page)).toBe(BEARER_TOKEN);
    // Its commands run in the sandbox: once /healthz answered, no line says otherwise
    // (console-sandbox.test.ts shows the line).
    expect(((await (await health).json()) as { sandbox?: { state: string } }).sandbox?.state).toBe(
      'sandboxed',
    );
    await page.getByRole('heading', { name: 'Turns', level: 1 }).waitFor();
    expect(await page.locator('output.sandbox-banner').count()).toBe(0);
    // Its model is the configured one (console-scripted-model.test.ts shows the line of the scripted one).
    expect(await page.locator('output.scripted-model-banner').count()).toBe(0);
  });
});
