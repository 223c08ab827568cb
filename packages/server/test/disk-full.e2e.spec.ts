/**
 * A full disk at each point of an upload's and a run's life, on a real server process whose data
 * directory (SQLite database and blobs) is on a small filesystem of its own: the disk is filled
 * (what is left taken by filler files) at that point, then space returns (the fillers removed).
 * Whatever answered while the disk was full, nothing is lost or half-written once space is back:
 * an upload answered 201 is readable with its exact bytes, one refused left no record and no
 * staging file, a run answered 201 ends `succeeded` with its output, executed and charged once,
 * and the server kept answering reads throughout.
 *
 * It needs a directory on a filesystem it may fill (`RUNLOAD_TEST_SMALL_DISK`, e.g. a 64 MiB
 * tmpfs): `scripts/disk-full-loop.sh` mounts one and runs this file N times. Without it, skipped.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { waitFor } from '@runload/core/testing';
import { makePng, pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { apiClient, type ApiClient } from './client.js';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess } from './processes.js';

const SMALL_DISK = process.env['RUNLOAD_TEST_SMALL_DISK'];
const TERMINAL = ['succeeded', 'failed', 'canceled', 'expired'];

/** Bytes free for an unprivileged writer on the filesystem holding `dir`. */
function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/** Takes every free byte of the filesystem with filler files (tmpfs allocates on write: they are written). */
function fillDisk(dir: string): string[] {
  const fillers: string[] = [];
  for (let i = 0; freeBytes(dir) > 0 && i < 64; i += 1) {
    const file = path.join(dir, `filler-${i}`);
    fillers.push(file);
    const chunk = Buffer.alloc(Math.max(4096, Math.min(freeBytes(dir), 8 * 1024 * 1024)), 1);
    try {
      writeFileSync(file, chunk);
    } catch {
      // ENOSPC: what fitted stays written; the loop looks again at what is left.
    }
  }
  return fillers;
}

function freeDisk(fillers: readonly string[]): void {
  for (const file of fillers) rmSync(file, { force: true });
}

/** A WAV of noise (a type uploads accept), different each call. */
function wav(bytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(bytes - 8, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(44_100, 24);
  header.writeUInt32LE(88_200, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(bytes - 44, 40);
  return Buffer.concat([header, randomBytes(bytes - 44)]);
}

interface UploadAnswer {
  status: number;
  assetId: string | null;
}

/**
 * Uploads `file` in pieces of 256 KiB; `atHalf` runs once half of it is sent (the disk is filled
 * there for a mid-upload failure). Resolves with the answer, or status 0 if the connection broke.
 */
function slowUpload(url: string, apiKey: string, file: Buffer, atHalf?: () => void): Promise<UploadAnswer> {
  const boundary = `----disk${randomBytes(6).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="noise.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return new Promise((resolve) => {
    const req = http.request(`${url}/api/v1/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
    });
    req.on('error', () => resolve({ status: 0, assetId: null }));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, assetId: res.statusCode === 201 ? (JSON.parse(text) as { asset_id: string }).asset_id : null }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, assetId: null }));
    });
    const piece = 256 * 1024;
    let sent = 0;
    let halved = false;
    const next = () => {
      if (req.destroyed) return;
      if (sent >= body.length) return void req.end();
      if (!halved && sent >= body.length / 2) {
        halved = true;
        atHalf?.();
      }
      const chunk = body.subarray(sent, sent + piece);
      sent += chunk.length;
      if (req.write(chunk)) setImmediate(next);
      else req.once('drain', next);
    };
    next();
  });
}

(SMALL_DISK ? describe : describe.skip)('a full disk at each point of an upload and a run', function () {
  this.timeout(180_000);
  let root: string;
  let dataDir: string;
  let fake: FakeComfyUI;
  let server: ServerProcess;
  let api: ApiClient;
  let apiKey: string;
  let appVersionId: string;
  let image: string;
  let fillers: string[] = [];
  /** Uploads answered 201 with the bytes sent, and the runs answered 201: checked at the end. */
  const uploaded = new Map<string, string>();
  const runs: string[] = [];
  /** What each point answered, printed at the end (the loop shows it). */
  const seen: string[] = [];

  before(async () => {
    root = mkdtempSync(path.join(SMALL_DISK as string, 'disk-full-'));
    dataDir = path.join(root, 'data');
    fake = await startFakeComfyUI({ executionMs: 300 });
    const env = { RUNLOAD_DATA_DIR: dataDir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'silent', RUNLOAD_LEASE_SECONDS: '3' };
    apiKey = await createAccountWithKey(env, 'disk', 'ultra');
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    server = await startServerProcess(env);
    api = apiClient(server.url, apiKey);
    const png = makePng(8, 8, () => [10, 20, 30, 255]);
    image = await api.upload(png, 'in.png');
    uploaded.set(image, createHash('sha256').update(png).digest('hex'));
  });

  afterEach(() => {
    freeDisk(fillers);
    fillers = [];
    fake.setDelays({ view: 0 });
    fake.resume();
  });

  after(async () => {
    process.stdout.write(`  seen: ${seen.join('; ')}\n`);
    await server?.stop('SIGTERM');
    await fake?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** The server still answers reads: the account, the asset list, an earlier asset's bytes. */
  async function expectReadsServed(): Promise<void> {
    expect((await api.json('GET', '/api/v1/account')).status).to.equal(200);
    expect((await api.json('GET', '/api/v1/assets')).status).to.equal(200);
    expect(pngSize(await api.bytes(`/api/v1/assets/${image}/content`))).to.not.equal(null);
  }

  function noStagingFiles(): string[] {
    const staging = path.join(dataDir, 'blobs', '.staging');
    return existsSync(staging) ? readdirSync(staging) : [];
  }

  async function expectUploadOutcome(answer: UploadAnswer, file: Buffer): Promise<void> {
    if (answer.status === 201 && answer.assetId) {
      uploaded.set(answer.assetId, createHash('sha256').update(file).digest('hex'));
    } else {
      expect([0, 500, 503], `an upload refused on a full disk answers the storage failure, not ${answer.status}`).to.include(answer.status);
    }
  }

  /** The status the last create answered. */
  let created = 0;

  async function createRun(blur: number): Promise<string | null> {
    const res = await api.json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: { '1:image': image, '2:blur_radius': blur } });
    created = res.status;
    if (res.status === 201) {
      runs.push(res.body.run_id);
      return res.body.run_id;
    }
    // The database could not write: try again (503 with Retry-After), never an unexpected error.
    expect(res.status, `a create on a full disk answers ${res.status}: ${JSON.stringify(res.body)}`).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    return null;
  }

  it('an upload that starts on a full disk', async () => {
    fillers = fillDisk(root);
    const file = wav(1024 * 1024);
    const answer = await slowUpload(server.url, apiKey, file);
    seen.push(`upload on a full disk ${answer.status}`);
    expect(answer.status, 'nothing can be written: the upload cannot be stored').to.not.equal(201);
    await expectUploadOutcome(answer, file);
    await expectReadsServed();
    expect(noStagingFiles()).to.deep.equal([]);
  });

  it('an upload the disk fills under, halfway through', async () => {
    const file = wav(8 * 1024 * 1024);
    const answer = await slowUpload(server.url, apiKey, file, () => (fillers = fillDisk(root)));
    seen.push(`upload filled under ${answer.status}`);
    expect(answer.status, 'its second half cannot be written').to.not.equal(201);
    await expectUploadOutcome(answer, file);
    await expectReadsServed();
    expect(noStagingFiles()).to.deep.equal([]);
  });

  it('an upload stored just before the disk fills, read while it is full', async () => {
    const file = wav(512 * 1024);
    const answer = await slowUpload(server.url, apiKey, file);
    expect(answer.status).to.equal(201);
    await expectUploadOutcome(answer, file);
    fillers = fillDisk(root);
    await expectReadsServed();
    const bytes = await api.bytes(`/api/v1/assets/${answer.assetId}/content`);
    expect(createHash('sha256').update(bytes).digest('hex')).to.equal(uploaded.get(answer.assetId as string));
  });

  it('a run created on a full disk', async () => {
    fillers = fillDisk(root);
    await createRun(1);
    seen.push(`create on a full disk ${created}`);
    await expectReadsServed();
  });

  it('a run whose prompt is sent while the disk fills (its start and progress are written then)', async () => {
    fake.pause();
    const runId = await createRun(2);
    expect(runId, 'created with room on the disk').to.be.a('string');
    if (runId === null) return;
    await waitFor(() => fake.prompts.some((p) => p.extra_data['runload_run_id'] === runId), 'the prompt to reach the backend', { timeoutMs: 30_000 });
    fillers = fillDisk(root);
    fake.resume();
    await waitFor(() => fake.finishedAt.size > 0 && [...fake.prompts].some((p) => p.extra_data['runload_run_id'] === runId && fake.executedCount(p.prompt_id) > 0), 'the run to execute on the backend', { timeoutMs: 30_000 });
    await expectReadsServed();
  });

  it('a run whose output arrives while the disk is full', async () => {
    const views = fake.requestCounts.get('GET /view') ?? 0;
    fake.setDelays({ view: 500 });
    const runId = await createRun(3);
    expect(runId, 'created with room on the disk').to.be.a('string');
    if (runId === null) return;
    await waitFor(() => (fake.requestCounts.get('GET /view') ?? 0) > views, 'the output download to begin', { timeoutMs: 30_000 });
    fillers = fillDisk(root);
    // Stored again at each sweep while the disk refuses it: wait for a second attempt.
    await waitFor(() => (fake.requestCounts.get('GET /view') ?? 0) > views + 1, 'the output to be fetched again after the failed store', { timeoutMs: 30_000 });
    const run = await api.json<{ status: string }>('GET', `/api/v1/runs/${runId}`);
    expect(run.body.status, 'not failed while the disk is full').to.not.be.oneOf(['failed', 'succeeded']);
    seen.push(`output on a full disk: run ${run.body.status}, fetched ${(fake.requestCounts.get('GET /view') ?? 0) - views} times`);
    await expectReadsServed();
  });

  it('once space is back: every upload answered 201 is readable with its bytes, every run answered 201 succeeded once, nothing half-written', async () => {
    for (const [assetId, sha] of uploaded) {
      const bytes = await api.bytes(`/api/v1/assets/${assetId}/content`);
      expect(createHash('sha256').update(bytes).digest('hex'), assetId).to.equal(sha);
    }
    for (const runId of runs) {
      const run = await api.waitFor(runId, TERMINAL, 60_000);
      expect(run['status'], `${runId}: ${JSON.stringify(run['error'])}`).to.equal('succeeded');
      const outputs = run['outputs'] as { url: string }[];
      expect(outputs).to.have.length(1);
      expect(pngSize(await api.bytes(outputs[0]?.url ?? ''))).to.not.equal(null);
      const prompts = fake.prompts.filter((p) => p.extra_data['runload_run_id'] === runId);
      expect(prompts, `${runId} sent once`).to.have.length(1);
      expect(fake.executedCount(prompts[0]?.prompt_id ?? '')).to.equal(1);
    }
    // Listed assets: the uploads answered 201 and the runs' outputs, each readable; nothing else.
    const listed = (await api.json<{ assets: { asset_id: string }[] }>('GET', '/api/v1/assets?limit=100')).body.assets.map((a) => a.asset_id);
    for (const id of uploaded.keys()) expect(listed).to.include(id);
    expect(listed).to.have.length(uploaded.size + runs.length);
    expect(noStagingFiles()).to.deep.equal([]);
    // Charged once per run: the account's use is the sum of its runs' GPU time.
    let charged = 0;
    for (const runId of runs) charged += ((await api.json<{ metrics: { gpu_seconds: number } }>('GET', `/api/v1/runs/${runId}`)).body.metrics.gpu_seconds ?? 0);
    const used = (await api.json<{ gpu_seconds_used: number }>('GET', '/api/v1/account')).body.gpu_seconds_used;
    expect(used).to.be.closeTo(charged, 0.01);
    seen.push(`after: ${uploaded.size} uploads and ${runs.length} runs intact, ${charged.toFixed(3)} GPU-s charged once`);
  });
});
