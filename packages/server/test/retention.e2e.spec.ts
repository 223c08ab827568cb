/**
 * Retention on real processes: two servers sharing PostgreSQL and an S3-protocol bucket (s3rver),
 * uploads kept three seconds, a sweep every second. An expired asset vanishes and its object is
 * removed from the bucket; the same bytes uploaded again and again while sweeps run stay readable.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makePng } from '@runload/fake-comfyui';
import { apiClient, type ApiClient } from './client.js';
import { cliJson, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';
import { startTestS3Server, type TestS3Server } from '../../s3-blob-store/test/s3-test-server.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
if (!pgUrl && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL');

const RETENTION_SECONDS = 3;

function objectsHolding(dir: string, bytes: Buffer): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('._S3rver_object'))
    .filter((d) => readFileSync(path.join(d.parentPath, d.name)).equals(bytes)).length;
}

(pgUrl ? describe : describe.skip)('retention with a short life, on an S3-compatible server and two instances', function () {
  this.timeout(120_000);
  const data = [tempDataDir(), tempDataDir()];
  let scratch: ScratchDatabase | undefined;
  let s3: TestS3Server;
  let servers: ServerProcess[] = [];
  let api: ApiClient[] = [];
  let key: string;

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 'ret');
    const url = scratch.url;
    s3 = await startTestS3Server();
    const limitsFile = path.join(data[0]?.dir ?? '', 'limits.json');
    writeFileSync(limitsFile, JSON.stringify({ retention: { uploads_days: RETENTION_SECONDS / 86_400, outputs_days: null } }));
    const envFor = (i: number) => ({
      ...s3.env,
      RUNLOAD_BLOB_URL: `s3://${s3.bucket}/ret`,
      RUNLOAD_DATA_DIR: data[i]?.dir ?? '',
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_COMFYUI_URLS: '',
      RUNLOAD_LIMITS_FILE: limitsFile,
      RUNLOAD_SWEEP_SECONDS: '1',
      RUNLOAD_LOG_LEVEL: 'silent',
    });
    await cliJson(['migrate'], envFor(0));
    const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'r', '--tier', 'ultra'], envFor(0));
    key = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], envFor(0))).api_key;
    servers = await Promise.all([0, 1].map((i) => startServerProcess(envFor(i))));
    api = servers.map((s) => apiClient(s.url, key));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    await s3?.close();
    await scratch?.drop();
    for (const d of data) d.remove();
  });

  it('an expired upload and its object go; the same bytes uploaded again while sweeps run stay readable', async () => {
    const [a, b] = api as [ApiClient, ApiClient];
    const doomed = makePng(8, 8, () => [200, 10, 10, 255]);
    const kept = makePng(8, 8, () => [10, 200, 10, 255]);
    const doomedId = await a.upload(doomed, 'doomed.png');
    expect(objectsHolding(s3.directory, doomed)).to.equal(1);

    // Upload `kept` again and again, on both instances, until the doomed asset and its bytes are
    // gone: each new copy races the sweeps that remove the copies before it as they expire.
    const deadline = Date.now() + 30_000;
    let uploads = 0;
    let latest = '';
    for (;;) {
      const client = uploads % 2 === 0 ? a : b;
      latest = await client.upload(kept, 'kept.png');
      uploads += 1;
      expect((await (uploads % 2 === 0 ? b : a).bytes(`/api/v1/assets/${latest}/content`)).equals(kept), `copy ${uploads} readable`).to.equal(true);
      const doomedGone = (await a.json('GET', `/api/v1/assets/${doomedId}`)).status === 404 && objectsHolding(s3.directory, doomed) === 0;
      if (doomedGone && uploads > 10) break;
      if (Date.now() > deadline) throw new Error(`after ${uploads} uploads the expired asset or its bytes are still there`);
      await new Promise((r) => setTimeout(r, 200)); // pacing of the uploads, not synchronisation
    }
    expect(objectsHolding(s3.directory, kept)).to.equal(1);
    const listed = (await b.json<{ assets: { asset_id: string }[] }>('GET', '/api/v1/assets?limit=100')).body.assets.map((x) => x.asset_id);
    expect(listed).to.include(latest);
    expect(listed).to.not.include(doomedId);
  });
});
