/**
 * What the console's browser tests run against: a fake ComfyUI, a runload server on a fresh data
 * directory with the built console, an account with a key, and two apps (an image blur with an
 * IMAGE input, and a text-to-image whose sampler reports progress).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { loadConfig, openRuntime, type Runtime } from '@runload/server';
import { launchChromium, openWatchedPage, type WatchedPage } from './browser.js';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLES = path.resolve(PACKAGE, '../../examples');

export interface ConsoleWorld {
  readonly fake: FakeComfyUI;
  readonly runtime: Runtime;
  readonly origin: string;
  readonly apiKey: string;
  readonly accountId: string;
  readonly blurApp: string;
  readonly textToImageApp: string;
  close(): Promise<void>;
}

/** Builds the console when its files are older than its sources (as `pnpm start` does). */
export function ensureConsoleBuilt(): void {
  execFileSync(process.execPath, [path.join(PACKAGE, 'scripts/ensure-built.mjs')], { stdio: 'inherit' });
}

export async function startConsoleWorld(options: { executionMs?: number; env?: Record<string, string> } = {}): Promise<ConsoleWorld> {
  ensureConsoleBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'runload-console-'));
  const fake = await startFakeComfyUI({ port: 0, executionMs: options.executionMs ?? 300, progressSteps: 4 });
  const config = {
    ...loadConfig({ RUNLOAD_DATA_DIR: dataDir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_PORT: '0', RUNLOAD_LOG_LEVEL: 'warn', ...options.env }),
    host: '127.0.0.1',
  };
  const runtime = await openRuntime(config, { dispatch: true });
  const server = await runtime.listen();
  const account = await runtime.api.accounts.create('Ada', 'plus');
  const { apiKey } = await runtime.api.apiKeys.create(account.id);
  const workflow = (name: string) => JSON.parse(readFileSync(path.join(EXAMPLES, 'workflows', name), 'utf8')) as unknown;
  const blur = await runtime.api.apps.publish({ name: 'Blur and invert', workflow: workflow('image-blur.api.json') });
  const textToImage = await runtime.api.apps.publish({ name: 'Text to image', workflow: workflow('text-to-image.api.json') });
  return {
    fake,
    runtime,
    origin: new URL(server.url).origin,
    apiKey,
    accountId: account.id,
    blurApp: blur.id,
    textToImageApp: textToImage.id,
    async close() {
      await runtime.close();
      await fake.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const EXAMPLE_PHOTO = path.join(EXAMPLES, 'photo.png');

/** What a browser suite shares: one world and one Chromium, and a fresh watched page per test. */
export interface ConsoleSuite {
  world: ConsoleWorld;
  browser: Browser;
  watched: WatchedPage;
}

/** Registers a suite's hooks; each passing test must also have stayed on runload's origin without errors. */
export function consoleSuite(): ConsoleSuite {
  const suite = {} as ConsoleSuite;
  before(async function () {
    suite.browser = await launchChromium(this);
    suite.world = await startConsoleWorld();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.world?.close();
  });
  beforeEach(async () => {
    suite.watched = await openWatchedPage(suite.browser, suite.world.origin);
  });
  afterEach(async function () {
    // A failed test keeps its own message.
    if (this.currentTest?.state === 'passed') await suite.watched.assertClean();
    await suite.watched.close();
  });
  return suite;
}
