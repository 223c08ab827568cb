/** The docs page in a real browser: it renders the document and reaches no other origin. */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { makeHarness, type Harness } from './harness.js';
// The one list of Chromium's flags, shared with the console's browser tests.
import { CHROMIUM, CHROMIUM_FLAGS } from '../../console/test/browser.js';

describe('the docs page in headless Chromium', function () {
  this.timeout(90_000);
  let h: Harness;
  let browser: Browser | undefined;

  before(function () {
    if (!existsSync(CHROMIUM)) {
      if (process.env['CI'] === 'true') throw new Error(`CI=true but ${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
      this.skip();
    }
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it('renders the runs and assets operations once each, names its server, and makes no request outside runload', async () => {
    h = await makeHarness('node');
    const origin = new URL(h.url as string).origin;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
    const page = await browser.newPage();
    const requested: string[] = [];
    const violations: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${origin}/docs`, { waitUntil: 'load' });
    for (const summary of ['Read a run', 'Run an app version named in the body', 'List your runs, newest first', 'Upload an image, video or audio file', 'Download an asset']) {
      await page.getByText(summary).first().waitFor({ state: 'attached', timeout: 60_000 });
    }
    // The sidebar comes first; the introduction, which names the server, is shown after it.
    await page.waitForFunction((name) => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.includes(name), origin, { timeout: 60_000 });
    // Whatever the page fetched, the browser's own resource timing lists it too (fonts and beacons included).
    const timed = await page.evaluate(() =>
      new Promise<string[]>((resolve) => {
        // A browser global, absent from the Node typings this file is checked with.
        const idle = (globalThis as unknown as { requestIdleCallback: (f: () => void) => void }).requestIdleCallback;
        idle(() => resolve(performance.getEntriesByType('resource').map((e) => e.name)));
      }),
    );
    requested.push(...timed);
    // The page names this server for its generated requests, and lists each operation once (no HEAD beside every GET).
    const text = await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText);
    expect(text).to.include(origin);
    const methods = text.split('\n').filter((line) => /^(GET|HEAD|POST|DELETE)$/.test(line.trim()));
    expect(methods).to.include('GET');
    expect(methods).not.to.include('HEAD');
    const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
    expect(foreign, 'requests to other origins').to.deep.equal([]);
    expect(violations, 'requests the page policy had to refuse').to.deep.equal([]);
    expect(requested).to.include(`${origin}/openapi.json`);
  });
});
