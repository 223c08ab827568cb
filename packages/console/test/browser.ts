/**
 * Headless Chromium for the browser tests (the console's and the docs page's), and a page that
 * records what would make a test dishonest to pass: a request to another origin, an error the
 * page logged, an uncaught exception.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

/** Debian's Chromium, which `.ci/run` installs. */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Any name but loopback fails to resolve, so a stray request could never succeed either.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

/** Chromium, or a skip outside CI where it is not installed (CI installs it and must run these). */
export async function launchChromium(context: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    if (process.env['CI'] === 'true') throw new Error(`CI=true but ${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
    context.skip();
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

export interface WatchedPage {
  readonly page: Page;
  /** Throws when a request left `origin`, the page logged an error, or a script threw. */
  assertClean(): Promise<void>;
  /** A refusal the test provokes on purpose: the browser's own log line for a failed request to a URL matching `url` is expected. */
  expectRefused(url: RegExp): void;
  close(): Promise<void>;
}

export async function openWatchedPage(browser: Browser, origin: string, viewport = { width: 1024, height: 800 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  const refusals: RegExp[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const expected = /^Failed to load resource/.test(message.text()) && refusals.some((url) => url.test(message.location().url));
    if (!expected) problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return {
    page,
    async assertClean() {
      // Whatever the page fetched, the browser's own resource timing lists it too.
      const timed = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
      const foreign = [...requested, ...timed].filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
      if (foreign.length > 0) throw new Error(`requests to other origins: ${foreign.join(', ')}`);
      if (problems.length > 0) throw new Error(`the page reported problems:\n${problems.join('\n')}`);
    },
    expectRefused: (url) => void refusals.push(url),
    close: () => context.close(),
  };
}

/** Opens the console (at `fragment`, a page of it) and signs in with the secret, pressing Enter as a keyboard user would. */
export async function signIn(page: Page, origin: string, secret: string, fragment = ''): Promise<void> {
  await page.goto(`${origin}/console${fragment}`, { waitUntil: 'load' });
  await page.getByLabel('API key or admin token').fill(secret);
  await page.getByLabel('API key or admin token').press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** How wide an `<img>` was decoded; 0 until it has been drawn. */
export function naturalWidth(image: Locator): Promise<number> {
  return image.evaluate((element) => (element as unknown as { complete: boolean; naturalWidth: number }).naturalWidth);
}

/** What the page keeps: sessionStorage's values, localStorage's keys and its cookies (evaluated in the page, whose globals these typings lack). */
export function storedByPage(page: Page): Promise<{ session: string[]; local: string[]; cookies: string }> {
  return page.evaluate('({ session: Object.values(sessionStorage), local: Object.keys(localStorage), cookies: document.cookie })');
}

/** The page's laid-out width: more than the viewport means a sideways scroll. */
export function pageWidth(page: Page): Promise<number> {
  return page.evaluate('document.documentElement.scrollWidth');
}
