/**
 * The scenario: a server killed during concurrent run creations. Clients whose connection
 * was reset retry with their Idempotency-Key after the restart and get exactly one run each.
 */
import { expect } from 'chai';
import path from 'node:path';
import { openDatabase } from '@runload/storage-adapter';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

describe('idempotency keys across a server killed mid-creation (SQLite)', function () {
  this.timeout(120_000);
  const data = tempDataDir();
  let fake: FakeComfyUI;
  let server: ServerProcess;
  let env: Record<string, string>;
  let apiKey: string;
  let appVersionId: string;

  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 10 });
    env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LOG_LEVEL: 'silent' };
    const accountId = (await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'k', '--tier', 'ultra'], env)).account_id;
    apiKey = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', accountId], env)).api_key;
    appVersionId = (await cliJson<{ app_version_id: string }>(['apps', 'publish', '--name', 'Blur', '--workflow', path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json')], env)).app_version_id;
    server = await startServerProcess(env);
  });
  after(async () => {
    await server?.stop('SIGTERM');
    await fake.close();
    data.remove();
  });

  const create = (key: string, blur: number) =>
    fetch(`${server.url}/api/v1/apps/${appVersionId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ inputs: { '2:blur_radius': blur } }),
    });

  it('gives each of 20 keys exactly one run when the server is killed during their creation and the clients retry', async () => {
    const keys = Array.from({ length: 20 }, (_, i) => `order-${i}`);
    const firstAnswer: (string | null)[] = keys.map(() => null);
    let answered!: () => void;
    const oneAnswered = new Promise<void>((r) => (answered = r));
    const attempts = keys.map((key, i) =>
      create(key, i + 1).then(
        async (res) => {
          if (res.status === 201) firstAnswer[i] = ((await res.json()) as { run_id: string }).run_id;
          answered();
        },
        () => undefined, // the connection was reset by the kill
      ),
    );
    await oneAnswered;
    await server.stop('SIGKILL');
    await Promise.all(attempts);
    server = await startServerProcess(env);

    const finalIds: string[] = [];
    for (const [i, key] of keys.entries()) {
      // A claim of the killed server is reported in flight until it lapses: honour Retry-After.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const res = await create(key, i + 1);
        if (res.status === 409) {
          expect(res.headers.get('retry-after')).to.equal('1');
          if (Date.now() > deadline) throw new Error(`${key} stayed in flight`);
          // Not synchronisation: honouring the Retry-After the answer gave, as a client must.
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        expect(res.status).to.equal(201);
        const runId = ((await res.json()) as { run_id: string }).run_id;
        if (firstAnswer[i]) {
          expect(runId, `${key} was answered before the kill`).to.equal(firstAnswer[i]);
          expect(res.headers.get('idempotent-replayed')).to.equal('true');
        }
        finalIds.push(runId);
        break;
      }
    }
    expect(new Set(finalIds).size).to.equal(20);
    const db = openDatabase({ url: null, dataDir: data.dir });
    try {
      const runs = await db('runs').select('id');
      expect(runs.map((r: { id: string }) => r.id).sort()).to.deep.equal([...finalIds].sort());
    } finally {
      await db.destroy();
    }
  });
});
