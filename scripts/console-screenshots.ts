/**
 * The console's screenshots in docs/: a real runload and the fake ComfyUI, an account that runs
 * the blur app on examples/photo.png, then the run's page in the account's console and this
 * month's usage in the operator's, taken in headless Chromium.
 * Run: node --conditions=@runload/source --import tsx scripts/console-screenshots.ts
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunloadClient } from '@runload/client';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../packages/console/test/browser.js';
import { EXAMPLE_PHOTO, startConsoleWorld } from '../packages/console/test/console-world.js';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs');

const world = await startConsoleWorld();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
try {
  const client = new RunloadClient({ baseUrl: world.origin, apiKey: world.apiKey });
  // A few runs of history, so the usage chart has something to show.
  for (const radius of [2, 5]) await client.waitForRun((await client.createRun(world.blurApp, { inputs: { '2:blur_radius': radius } })).run_id);
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });

  await page.goto(`${world.origin}/console`);
  await page.getByLabel('API key or admin token').fill(world.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Blur and invert' }).click();
  await page.getByLabel('1:image').setInputFiles(EXAMPLE_PHOTO);
  await page.getByText(/Uploaded as /).waitFor();
  await page.getByRole('button', { name: 'Run' }).click();
  await page.getByTestId('run-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
  await page.locator('figure.output img').waitFor();
  await page.waitForFunction('[...document.images].every((img) => img.complete && img.naturalWidth > 0)');
  await page.screenshot({ path: path.join(DOCS, 'console-account.png'), fullPage: true });
  await page.getByRole('button', { name: 'Sign out' }).click();

  const adminToken = (await world.runtime.api.adminTokens.create('screenshots', ['*'])).secret;
  await page.goto(`${world.origin}/console#/usage`);
  await page.getByLabel('API key or admin token').fill(adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('img', { name: /GPU seconds per account/ }).waitFor();
  await page.screenshot({ path: path.join(DOCS, 'console-operator.png'), fullPage: true });
  process.stdout.write(`wrote ${path.join(DOCS, 'console-account.png')} and console-operator.png\n`);
} finally {
  await browser.close();
  await world.close();
}
