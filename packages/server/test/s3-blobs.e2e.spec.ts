/**
 * Blobs on an S3-protocol server (s3rver, in this process): three server processes sharing
 * PostgreSQL, each with its own data directory, serve each other's uploads and outputs, and no
 * data directory holds blob bytes.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { apiClient, type ApiClient } from './client.js';
import { cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';
import { startTestS3Server, type TestS3Server } from '../../s3-blob-store/test/s3-test-server.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
if (!pgUrl && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL');

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}

(pgUrl ? describe : describe.skip)('blobs on an S3-compatible server, three instances without a shared directory', function () {
  this.timeout(120_000);
  const dataDirs = [tempDataDir(), tempDataDir(), tempDataDir()];
  let scratch: ScratchDatabase | undefined;
  let s3: TestS3Server;
  let fake: FakeComfyUI;
  let servers: ServerProcess[] = [];
  let api: ApiClient[] = [];
  let appVersionId: string;
  let key: string;

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 's3');
    const url = scratch.url;
    s3 = await startTestS3Server();
    fake = await startFakeComfyUI({ executionMs: 20 });
    const envFor = (i: number) => ({
      ...s3.env,
      RUNLOAD_BLOB_URL: `s3://${s3.bucket}/runload`,
      RUNLOAD_DATA_DIR: dataDirs[i]?.dir ?? '',
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_COMFYUI_URLS: fake.url,
      RUNLOAD_LOG_LEVEL: 'silent',
    });
    await cliJson(['migrate'], envFor(0));
    const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 's3', '--tier', 'ultra'], envFor(0));
    key = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], envFor(0))).api_key;
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], envFor(0))).app_version_id;
    servers = await Promise.all([0, 1, 2].map((i) => startServerProcess(envFor(i))));
    api = servers.map((s) => apiClient(s.url, key));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    await fake?.close();
    await s3?.close();
    await scratch?.drop();
    for (const d of dataDirs) d.remove();
  });

  it('upload on one instance, run on another, outputs and ranges downloaded from the third; the bytes live only in the bucket', async () => {
    const [a, b, c] = api as [ApiClient, ApiClient, ApiClient];
    // Big enough for a multipart upload; random pixels keep it from compressing into something small.
    const noise = randomBytes(2048 * 1536 * 3);
    const png = makePng(2048, 1536, (x, y) => {
      const i = (y * 2048 + x) * 3;
      return [noise[i] ?? 0, noise[i + 1] ?? 0, noise[i + 2] ?? 0, 255];
    });
    expect(png.length).to.be.above(9 * 1024 * 1024);
    const imageId = await a.upload(png, 'in.png');
    expect((await b.bytes(`/api/v1/assets/${imageId}/content`)).equals(png)).to.equal(true);
    expect((await c.bytes(`/api/v1/assets/${imageId}/content`)).equals(png)).to.equal(true);

    const created = await b.json<{ run_id: string }>('POST', `/api/v1/apps/${appVersionId}`, { inputs: { '1:image': imageId, '2:blur_radius': 3, '2:sigma': 1 } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const run = await c.waitFor(created.body.run_id, ['succeeded', 'failed'], 60_000);
    expect(run['status'], JSON.stringify(run['error'])).to.equal('succeeded');
    expect(fake.requestCounts.get('POST /upload/image'), 'the input went to the backend').to.equal(1);

    const outputs = run['outputs'] as { asset_id: string; size: number; url: string }[];
    expect(outputs.length).to.be.above(0);
    for (const output of outputs) {
      const whole = await a.bytes(output.url);
      expect(whole.length).to.equal(output.size);
      const res = await fetch(`${servers[2]?.url}${output.url}`, { headers: { authorization: `Bearer ${key}`, range: 'bytes=1-4' } });
      expect(res.status).to.equal(206);
      expect(Buffer.from(await res.arrayBuffer()).equals(whole.subarray(1, 5))).to.equal(true);
    }

    const objects = filesUnder(s3.directory).filter((f) => f.endsWith('._S3rver_object'));
    expect(objects.some((f) => readFileSync(f).equals(png)), 'the upload is in the bucket').to.equal(true);
    for (const d of dataDirs) {
      for (const f of filesUnder(d.dir)) {
        expect(statSync(f).size, `${f} in a data directory`).to.be.below(png.length);
        expect(readFileSync(f).includes(png.subarray(4096, 4096 + 1024)), `${f} holds upload bytes`).to.equal(false);
      }
    }
  });
});

