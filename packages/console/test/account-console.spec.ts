/** The account's console in headless Chromium, against a real server and the fake ComfyUI. */
import { expect } from 'chai';
import { RunloadClient } from '@runload/client';
import { waitFor } from '@runload/core/testing';
import { naturalWidth, openWatchedPage, pageWidth, signIn, storedByPage } from './browser.js';
import { consoleSuite, EXAMPLE_PHOTO } from './console-world.js';

describe('the account console in headless Chromium', function () {
  this.timeout(90_000);
  const suite = consoleSuite();

  it('signs in with the key kept in sessionStorage only, lists the apps, and signs out', async () => {
    const { page } = suite.watched;
    await signIn(page, suite.world.origin, suite.world.apiKey);
    await page.getByRole('link', { name: 'Blur and invert' }).waitFor();
    expect(await storedByPage(page)).to.deep.equal({ session: [suite.world.apiKey], local: [], cookies: '' });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key or admin token').waitFor();
    expect((await storedByPage(page)).session).to.deep.equal([]);
  });

  it('says so when the key is refused, and opens nothing', async () => {
    const { page } = suite.watched;
    suite.watched.expectRefused(/\/api\/v1\/account$/);
    await page.goto(`${suite.world.origin}/console`, { waitUntil: 'load' });
    await page.getByLabel('API key or admin token').fill('rl_nope_nope');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid API key' }).waitFor();
    expect((await storedByPage(page)).session).to.deep.equal([]);
  });

  it('builds the form from the typed inputs, uploads an image at once, runs it and draws the output', async () => {
    const { page } = suite.watched;
    await signIn(page, suite.world.origin, suite.world.apiKey);
    await page.getByRole('link', { name: 'Blur and invert' }).click();
    expect(await page.getByLabel('2:blur_radius').getAttribute('type')).to.equal('number');
    expect(await page.getByLabel('2:blur_radius').inputValue()).to.equal('4');
    await page.getByLabel('2:blur_radius').fill('6');
    await page.getByLabel('1:image').setInputFiles(EXAMPLE_PHOTO);
    await page.getByText(/Uploaded as /).waitFor();
    expect(await naturalWidth(page.getByAltText('Chosen for 1:image'))).to.be.greaterThan(0);
    await page.getByRole('button', { name: 'Run' }).click();

    await page.getByTestId('run-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    const output = page.locator('figure.output img');
    await output.waitFor();
    const alt = await output.getAttribute('alt');
    expect(alt).to.match(/\.png$/);
    await waitFor(async () => (await naturalWidth(output)) > 0, 'the output image drawn', { timeoutMs: 10_000 });
    expect(await page.getByRole('link', { name: `Download ${alt}` }).getAttribute('download')).to.equal(alt);

    // The run used the uploaded asset and the edited number.
    const runId = new URL(page.url()).hash.replace('#/runs/', '');
    const run = await new RunloadClient({ baseUrl: suite.world.origin, apiKey: suite.world.apiKey }).getRun(runId);
    expect(run.inputs['2:blur_radius']).to.equal(6);
    expect(run.inputs['1:image']).to.match(/^[0-9a-f-]{36}$/);
  });

  it('cancels a run while it is queued or running', async () => {
    const { page } = suite.watched;
    suite.world.fake.pause();
    try {
      await signIn(page, suite.world.origin, suite.world.apiKey);
      await page.getByRole('link', { name: 'Text to image' }).click();
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByTestId('run-status').filter({ hasText: /queued|running/ }).waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByTestId('run-status').filter({ hasText: /^canceled$/ }).waitFor({ timeout: 30_000 });
      expect(await page.getByRole('button', { name: 'Cancel' }).count()).to.equal(0);
    } finally {
      suite.world.fake.resume();
    }
  });

  it('keeps showing canceled when the answer to Cancel arrives after the event stream said so', async () => {
    // On a loaded machine the answer ("canceling") and the stream's "canceled" may reach the page
    // in either order; here the answer is held until the stream's has been shown.
    const { page } = suite.watched;
    let streamShowedCanceled!: () => void;
    const held = new Promise<void>((resolve) => (streamShowedCanceled = resolve));
    let answered = '';
    await page.route('**/api/v1/runs/*/cancel', async (route) => {
      const answer = await route.fetch();
      answered = ((await answer.json()) as { status: string }).status;
      await held;
      await route.fulfill({ response: answer });
    });
    suite.world.fake.pause();
    try {
      await signIn(page, suite.world.origin, suite.world.apiKey);
      await page.getByRole('link', { name: 'Text to image' }).click();
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByTestId('run-status').filter({ hasText: /^queued$/ }).waitFor();
      const runId = new URL(page.url()).hash.replace('#/runs/', '');
      // In the backend's queue: a cancel then waits for the backend to give the prompt back.
      await waitFor(async () => JSON.stringify(await (await fetch(`${suite.world.fake.url}/queue`)).json()).includes(runId), 'the prompt in the backend\'s queue', { timeoutMs: 10_000 });

      const finished = page.waitForEvent('requestfinished', (request) => request.url().endsWith(`/runs/${runId}/cancel`));
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByTestId('run-status').filter({ hasText: /^canceled$/ }).waitFor({ timeout: 30_000 });
      streamShowedCanceled();
      await finished;
      // The answer has been read once the page's timeline lists the call; what the page does with it shows by the next frame.
      await page.waitForFunction((id) => performance.getEntriesByType('resource').some((entry) => entry.name.endsWith(`/runs/${id}/cancel`)), runId, { polling: 'raf' });
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');

      expect(answered, 'the answer to Cancel was older news').to.equal('canceling');
      expect(await page.getByTestId('run-status').textContent()).to.equal('canceled');
      expect(await page.getByRole('button', { name: 'Cancel' }).count()).to.equal(0);
    } finally {
      streamShowedCanceled();
      suite.world.fake.resume();
    }
  });

  it('shows the latest preview while a slow run runs, and its output once it is done', async () => {
    const { page } = suite.watched;
    suite.world.fake.setExecutionMs(4000);
    suite.world.fake.setPreviews({ steps: 12 });
    try {
      await signIn(page, suite.world.origin, suite.world.apiKey);
      await page.getByRole('link', { name: 'Text to image' }).click();
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByTestId('run-status').filter({ hasText: /^running$/ }).waitFor({ timeout: 30_000 });
      const preview = page.getByAltText('Latest preview');
      await preview.waitFor({ timeout: 30_000 });
      await waitFor(async () => (await naturalWidth(preview)) > 0, 'the preview drawn', { timeoutMs: 10_000 });
      expect(await page.getByTestId('run-status').textContent()).to.equal('running');
      const bar = page.getByRole('progressbar', { name: 'Progress' });
      expect(Number(await bar.getAttribute('aria-valuenow'))).to.be.at.least(0);
      await page.getByTestId('run-status').filter({ hasText: /^succeeded$/ }).waitFor({ timeout: 30_000 });
      expect(await preview.count(), 'no preview once it has ended').to.equal(0);
      await waitFor(async () => (await naturalWidth(page.locator('figure.output img'))) > 0, 'the output drawn', { timeoutMs: 10_000 });
    } finally {
      suite.world.fake.setExecutionMs(300);
      suite.world.fake.setPreviews({ steps: 4 });
    }
  });

  it('pages through the runs, newest first, with their thumbnails', async () => {
    const client = new RunloadClient({ baseUrl: suite.world.origin, apiKey: suite.world.apiKey });
    const created: string[] = [];
    for (let i = 0; i < 12; i += 1) created.push((await client.createRun(suite.world.blurApp, { inputs: { '2:blur_radius': i + 1 } })).run_id);
    // One event stream per run, one after the other: polling would spend the account's request budget the page needs.
    for (const id of created) await client.waitForRun(id);
    // Newest first, as the API orders them (runs created within one millisecond keep its order too).
    const listed = (await client.listRuns({ limit: 100 })).runs.map((run) => `#/runs/${run.run_id}`);
    const total = listed.length;

    const { page } = suite.watched;
    await signIn(page, suite.world.origin, suite.world.apiKey);
    await page.getByRole('link', { name: 'Runs' }).click();
    const rows = page.locator('ul.runs > li');
    await rows.first().waitFor();
    const shown = () => rows.getByRole('link').evaluateAll((links) => links.map((link) => (link as unknown as { getAttribute(name: string): string }).getAttribute('href')));
    expect(await shown()).to.deep.equal(listed.slice(0, 10));
    expect(listed.slice(0, 12).sort()).to.deep.equal(created.map((id) => `#/runs/${id}`).sort());
    await waitFor(async () => (await naturalWidth(rows.first().locator('img.thumbnail')).catch(() => 0)) > 0, 'the newest run\'s thumbnail drawn', { timeoutMs: 10_000 });

    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await rows.getByRole('link').first().and(page.locator(`[href="${listed[10]}"]`)).waitFor();
    expect(await shown()).to.deep.equal(listed.slice(10, 20));
    expect(total).to.be.greaterThan(10);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Page 1').waitFor();
    await rows.getByRole('link').first().and(page.locator(`[href="${listed[0]}"]`)).waitFor();
    expect(await shown()).to.deep.equal(listed.slice(0, 10));
  });

  it('shows the tier, the limits and the GPU quota used as a bar', async () => {
    const { page } = suite.watched;
    await signIn(page, suite.world.origin, suite.world.apiKey);
    await page.getByRole('link', { name: 'Account' }).click();
    const bar = page.getByRole('progressbar', { name: 'GPU seconds used' });
    await bar.waitFor();
    expect(Number(await bar.getAttribute('aria-valuemax'))).to.equal(18000);
    expect(Number(await bar.getAttribute('aria-valuenow'))).to.be.at.least(0);
    await page.getByText('plus', { exact: true }).waitFor();
    await page.getByRole('rowheader', { name: 'Runs per minute' }).waitFor();
  });

  it('fits a 390 px wide screen on every page', async () => {
    await suite.watched.close();
    suite.watched = await openWatchedPage(suite.browser, suite.world.origin, { width: 390, height: 844 });
    const { page } = suite.watched;
    await signIn(page, suite.world.origin, suite.world.apiKey);
    for (const [link, heading] of [
      ['Apps', 'Apps'],
      ['Runs', 'Runs'],
      ['Account', 'Account'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' }).catch(() => undefined);
      const width = await pageWidth(page);
      expect(width, `the ${link} page's width`).to.be.at.most(390);
    }
  });
});
