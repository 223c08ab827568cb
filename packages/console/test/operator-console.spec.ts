/** The operator's console in headless Chromium, with an admin token, against a real server and the fake ComfyUI. */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { RunloadClient, RunloadError } from '@runload/client';
import { waitFor } from '@runload/core/testing';
import { openWatchedPage, pageWidth, signIn, storedByPage } from './browser.js';
import { consoleSuite } from './console-world.js';

describe('the operator console in headless Chromium', function () {
  this.timeout(90_000);
  const suite = consoleSuite();
  let adminToken: string;

  before(async () => {
    adminToken = (await suite.world.runtime.api.adminTokens.create('console test', ['*'])).secret;
  });

  /** Opens a section of the operator's console directly, signing in on the way. */
  const openSection = async (section: string) => {
    await signIn(suite.watched.page, suite.world.origin, adminToken, `#/${section.toLowerCase()}`);
    await suite.watched.page.getByRole('heading', { name: section, level: 1 }).waitFor();
  };

  it('creates an account, issues a key shown once, changes its tier, suspends it and revokes the key', async () => {
    const { page } = suite.watched;
    await openSection('Accounts');
    await page.getByLabel('Account name').fill('Grace');
    await page.getByLabel('Tier of the new account').selectOption('max');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('rowheader', { name: 'Grace' }).waitFor();
    const panel = page.getByRole('article', { name: 'Account Grace' });
    await panel.getByRole('button', { name: 'Issue key' }).click();
    const key = (await panel.getByRole('status').or(panel.locator('output')).first().textContent()) ?? '';
    expect(key).to.match(/^rl_/);
    const asGrace = new RunloadClient({ baseUrl: suite.world.origin, apiKey: key, retry: false });
    expect(await asGrace.getAccount()).to.include({ name: 'Grace', tier: 'max' });

    await panel.getByLabel('Tier').selectOption('ultra');
    await waitFor(async () => (await asGrace.getAccount()).tier === 'ultra', 'the tier changed', { timeoutMs: 5000 });
    await panel.getByRole('button', { name: 'Suspend' }).click();
    await panel.getByRole('button', { name: 'Reactivate' }).waitFor();
    await page.getByRole('row', { name: /Grace/ }).getByRole('cell', { name: 'suspended' }).waitFor();

    await panel.getByRole('button', { name: /^Revoke key / }).click();
    await panel.getByText(/revoked/).waitFor();
    // A revocation reaches every instance's key cache within a second.
    const refusal = () => asGrace.getAccount().then(() => null, (error: unknown) => (RunloadError.is(error) ? error.status : error));
    await waitFor(async () => (await refusal()) === 401, 'the revoked key refused', { timeoutMs: 3000, intervalMs: 200 });
  });

  it("reads this month's usage as a chart and a table, and downloads it as CSV", async () => {
    const client = new RunloadClient({ baseUrl: suite.world.origin, apiKey: suite.world.apiKey });
    const { run_id } = await client.createRun(suite.world.blurApp, { inputs: { '2:blur_radius': 3 } });
    expect((await client.waitForRun(run_id)).status).to.equal('succeeded');

    const { page } = suite.watched;
    await openSection('Usage');
    const month = new Date().toISOString().slice(0, 7);
    await page.getByRole('img', { name: `GPU seconds per account in ${month}` }).waitFor();
    const row = page.getByRole('row', { name: /Ada/ });
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[0]).to.equal('plus');
    expect(Number(cells[1])).to.be.greaterThan(0);
    expect(Number(cells[2])).to.be.at.least(1);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).to.equal(`runload-usage-${month}.csv`);
    const csv = readFileSync(await download.path(), 'utf8').split(/\r?\n/);
    expect(csv[0]).to.equal('account_id,name,tier,gpu_seconds,succeeded,failed,canceled,expired');
    expect(csv.some((line) => line.startsWith(`${suite.world.accountId},Ada,plus,`))).to.equal(true);
  });

  it('shows the queued and running runs per account', async () => {
    suite.world.fake.pause();
    const client = new RunloadClient({ baseUrl: suite.world.origin, apiKey: suite.world.apiKey });
    const { run_id } = await client.createRun(suite.world.textToImageApp);
    try {
      const { page } = suite.watched;
      await openSection('Queue');
      const row = page.getByRole('row', { name: new RegExp(suite.world.accountId) });
      await row.waitFor();
      const [queued, running] = (await row.getByRole('cell').allTextContents()).map(Number);
      expect((queued ?? 0) + (running ?? 0)).to.equal(1);
    } finally {
      await client.cancelRun(run_id);
      suite.world.fake.resume();
    }
  });

  it("shows the pool's backend and drains and activates it", async () => {
    const { page } = suite.watched;
    await openSection('Pool');
    const backendUrl = suite.world.fake.url.replace(/\/$/, '');
    const card = page.getByRole('article', { name: `Backend ${backendUrl}` });
    await card.waitFor();
    expect(await card.textContent()).to.contain(backendUrl);
    const state = card.getByTestId('backend-state');
    expect(await state.textContent()).to.equal('active');
    // The definition right after its term: a term may have several definitions (warm app versions).
    const fact = async (name: string) => (await card.getByRole('term').filter({ hasText: name }).first().locator('xpath=following-sibling::dd[1]').textContent())?.trim();
    // The dispatcher probes the backend soon after start; the page shows what the pool answers.
    await waitFor(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await fact('Reachable')) === 'yes';
      },
      'the backend probed and reachable',
      { timeoutMs: 10_000, intervalMs: 300 },
    );
    expect(await fact('Held / depth')).to.match(/^0 \/ (default|\d+)$/);
    expect(await fact('Labels')).to.equal('—');
    expect(await fact('ComfyUI')).to.match(/^\d+\.\d+\.\d+/);

    await card.getByRole('button', { name: `Drain ${backendUrl}` }).click();
    await waitFor(async () => ['draining', 'drained'].includes((await state.textContent()) ?? ''), 'the backend draining', { timeoutMs: 5000 });
    const drained = await suite.world.runtime.api.backends.list();
    expect(drained.map((b) => b.backend.state)).to.satisfy((states: string[]) => states.every((s) => s === 'draining' || s === 'drained'));

    await card.getByRole('button', { name: `Activate ${backendUrl}` }).click();
    await waitFor(async () => (await state.textContent()) === 'active', 'the backend active again', { timeoutMs: 5000 });
  });

  it('keeps the admin token in sessionStorage only and fits 390 px on its pages', async () => {
    await suite.watched.close();
    suite.watched = await openWatchedPage(suite.browser, suite.world.origin, { width: 390, height: 844 });
    const { page } = suite.watched;
    await signIn(page, suite.world.origin, adminToken, '#/accounts');
    expect(await storedByPage(page)).to.deep.equal({ session: [adminToken], local: [], cookies: '' });
    for (const section of ['Pool', 'Accounts', 'Queue', 'Usage']) {
      await page.getByRole('link', { name: section, exact: true }).click();
      await page.getByRole('heading', { name: section, level: 1 }).waitFor();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' }).catch(() => undefined);
      expect(await pageWidth(page), `the ${section} page's width`).to.be.at.most(390);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key or admin token').waitFor();
  });
});
