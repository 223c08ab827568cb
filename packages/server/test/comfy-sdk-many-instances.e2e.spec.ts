/**
 * The official Comfy SDK against three runload instances sharing PostgreSQL, Redis and one blob
 * directory: a job submitted on one is polled on another and streamed on the third, and the
 * bytes uploaded through one are found by their hash through another.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Comfy, type ComfyEvent } from '@comfyorg/sdk';
import { makePng, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { cliJson, createAccountWithKey, REPO_ROOT, type ServerProcess, startServerProcess, tempDataDir } from './processes.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

const pgUrl = process.env['RUNLOAD_TEST_PG_URL'];
const redisUrl = process.env['RUNLOAD_TEST_REDIS_URL'];
if ((!pgUrl || !redisUrl) && process.env['CI'] === 'true') throw new Error('CI=true needs RUNLOAD_TEST_PG_URL and RUNLOAD_TEST_REDIS_URL');

const BLUR = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json'), 'utf8')) as Record<string, unknown>;

(pgUrl && redisUrl ? describe : describe.skip)('the official Comfy SDK against three instances on PostgreSQL and Redis', function () {
  this.timeout(180_000);
  const data = tempDataDir();
  let scratch: ScratchDatabase | undefined;
  let fake: FakeComfyUI;
  let servers: ServerProcess[] = [];
  let apiKey: string;
  let imagePath: string;

  before(async () => {
    scratch = await createScratchDatabase(pgUrl ?? '', 'v2');
    const url = scratch.url;
    fake = await startFakeComfyUI({ executionMs: 600 });
    const env = {
      RUNLOAD_DATA_DIR: data.dir,
      RUNLOAD_DATABASE_URL: url,
      RUNLOAD_REDIS_URL: `${redisUrl}`,
      RUNLOAD_COMFYUI_URLS: fake.url,
      RUNLOAD_LOG_LEVEL: 'silent',
    };
    await cliJson(['migrate'], env);
    apiKey = await createAccountWithKey(env, 'v2', 'ultra');
    servers = await Promise.all([0, 1, 2].map(() => startServerProcess(env)));
    imagePath = path.join(data.dir, 'photo.png');
    writeFileSync(imagePath, makePng(32, 32, (x, y) => [x * 8, y * 8, 64, 255]));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGTERM')));
    await fake?.close();
    await scratch?.drop();
    data.remove();
    delete process.env['COMFY_BASE_URL'];
  });

  /** A client of one instance, as a script makes it: COMFY_BASE_URL and the key. */
  const clientOf = (server: ServerProcess | undefined, calls: string[] = []) => {
    process.env['COMFY_BASE_URL'] = server?.url ?? '';
    const recording: typeof fetch = (input, init) => {
      calls.push(`${(init?.method ?? 'GET').toUpperCase()} ${decodeURIComponent(new URL(String(input)).pathname)}`);
      return fetch(input, init);
    };
    return new Comfy({ apiKey, fetch: recording });
  };

  it('submits on one instance, polls on a second and streams on the third to the end', async () => {
    const first = clientOf(servers[0]);
    const workflow = first.workflows.fromJson(structuredClone(BLUR));
    workflow.setInput('1', 'image', first.assets.fromFile(imagePath));
    const submitted = await first.submit(workflow);

    const streamed = (async () => {
      const job = await clientOf(servers[2]).jobs.get(submitted.id);
      const events: ComfyEvent[] = [];
      for await (const event of job.events()) events.push(event);
      return events;
    })();
    const polled = await (await clientOf(servers[1]).jobs.get(submitted.id)).wait(60_000);
    expect(polled.status).to.equal('succeeded');
    expect(polled.outputs).to.have.length(1);

    const events = await streamed;
    expect(events[events.length - 1]).to.deep.include({ kind: 'statusChange', status: 'succeeded' });
    const outputs = events.flatMap((e) => (e.kind === 'outputReady' ? [e.output.id] : []));
    expect(outputs).to.deep.equal([polled.outputs[0]?.id]);
  });

  it('finds bytes uploaded through one instance by their hash through another', async () => {
    const calls: string[] = [];
    const second = clientOf(servers[1], calls);
    const image = second.assets.fromFile(imagePath);
    await image.commit();
    expect(calls).to.include('POST /api/v2/assets/from-hash');
    expect(calls).to.not.include('POST /api/v2/assets');
    expect(image.createdNew).to.equal(false);
  });
});
