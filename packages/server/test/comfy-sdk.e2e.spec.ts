/**
 * The official Comfy SDK (`@comfyorg/sdk`, pinned) against a runload server with the fake ComfyUI,
 * as a user who moved a Comfy Cloud script to runload by changing COMFY_BASE_URL and the key. Every
 * JSON answer is checked with the SDK's own zod schemas (which the SDK does not apply itself) and
 * against runload's `/openapi-v2.json`.
 */
import { expect } from 'chai';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Comfy, Forbidden, InvalidWorkflow, NotFound, Unauthorized, type ComfyEvent } from '@comfyorg/sdk';
import { ApiError, ComfyLow, schemas } from '@comfyorg/sdk/low';
import { buildComfyV2Document } from '@runload/api-schema';
import { createResponseChecker } from '@runload/api-schema/testing';
import { makePng, pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { waitFor } from '@runload/core/testing';
import { cliJson, REPO_ROOT, startServerProcess, tempDataDir, type ServerProcess } from './processes.js';

const TEXT_TO_IMAGE = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples/workflows/text-to-image.api.json'), 'utf8')) as Record<string, unknown>;
const BLUR = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples/workflows/image-blur.api.json'), 'utf8')) as Record<string, unknown>;
const checker = createResponseChecker(buildComfyV2Document());

interface Recorded {
  readonly method: string;
  readonly path: string;
}

/** The SDK's own validation of an answer, plus runload's document. */
async function conforming(response: Response, method: string, url: string): Promise<void> {
  await checker.check(method, url, response);
  if (!(response.headers.get('content-type') ?? '').includes('json') || method === 'HEAD') return;
  const body: unknown = await response.clone().json();
  const pathname = new URL(url).pathname;
  if (response.status >= 400) schemas.zErrorEnvelope.parse(body);
  else if (/\/api\/v2\/assets(\/from-hash|\/[^/]+)?$/.test(pathname)) schemas.zAsset.parse(body);
  else if (/\/api\/v2\/jobs(\/[^/]+(\/cancel)?)?$/.test(pathname) && !(method === 'GET' && pathname.endsWith('/jobs'))) schemas.zJob.parse(body);
}

/** A fetch that records each call and checks each answer; what the SDK is given as `fetch`. */
function recordingFetch(calls: Recorded[]): typeof fetch {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const method = (init?.method ?? 'GET').toUpperCase();
    calls.push({ method, path: decodeURIComponent(new URL(url).pathname) });
    const response = await fetch(input, init);
    await conforming(response, method, url);
    return response;
  };
}

/** A Comfy client on `server`, as a script gets one: COMFY_BASE_URL and an API key. */
function comfyOn(server: ServerProcess, apiKey: string, calls: Recorded[] = []): Comfy {
  process.env['COMFY_BASE_URL'] = server.url;
  return new Comfy({ apiKey, fetch: recordingFetch(calls) });
}

async function collect(events: AsyncIterable<ComfyEvent>): Promise<ComfyEvent[]> {
  const seen: ComfyEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('the official Comfy SDK against runload', function () {
  this.timeout(120_000);
  const data = tempDataDir();
  let fake: FakeComfyUI;
  let server: ServerProcess;
  const keys: Record<'main' | 'other' | 'limited' | 'starter', string> = { main: '', other: '', limited: '', starter: '' };
  let imagePath: string;

  before(async () => {
    fake = await startFakeComfyUI({ executionMs: 100 });
    const limitsFile = path.join(data.dir, 'limits.json');
    writeFileSync(
      limitsFile,
      JSON.stringify({ general_per_minute: 100_000, tiers: { plus: { runs_per_minute: 1, runs_per_hour: 1 }, starter: { workflows: false } } }),
    );
    const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_COMFYUI_URLS: fake.url, RUNLOAD_LIMITS_FILE: limitsFile, RUNLOAD_LOG_LEVEL: 'silent' };
    const tiers = { main: 'ultra', other: 'ultra', limited: 'plus', starter: 'starter' } as const;
    for (const [name, tier] of Object.entries(tiers) as [keyof typeof keys, string][]) {
      const account = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', name, '--tier', tier], env);
      keys[name] = (await cliJson<{ api_key: string }>(['keys', 'create', '--account', account.account_id], env)).api_key;
    }
    server = await startServerProcess(env);
    imagePath = path.join(data.dir, 'photo.png');
    writeFileSync(imagePath, makePng(64, 48, (x, y) => [x * 4, y * 5, 128, 255]));
  });

  after(async () => {
    await server?.stop('SIGTERM');
    await fake?.close();
    data.remove();
    delete process.env['COMFY_BASE_URL'];
  });

  const blurOf = (comfy: Comfy, image: unknown) => {
    const workflow = comfy.workflows.fromJson(structuredClone(BLUR));
    workflow.setInput('1', 'image', image);
    return workflow;
  };

  it('uploads with assets.fromFile, submits, follows events() to the end and reads the outputs whole and by range; the job is a run of /api/v1', async () => {
    const calls: Recorded[] = [];
    const comfy = comfyOn(server, keys.main, calls);
    const image = comfy.assets.fromFile(imagePath);
    const job = await comfy.submit(blurOf(comfy, image));
    expect(calls.map((c) => `${c.method} ${c.path}`)).to.include.members(['HEAD /api/v2/assets/by-hash/' + (await image.hash()), 'POST /api/v2/assets', 'POST /api/v2/jobs']);
    expect(image.createdNew).to.equal(true);

    const events = await collect(job.events());
    const last = events[events.length - 1];
    expect(last).to.deep.include({ kind: 'statusChange', status: 'succeeded' });
    expect(events.filter((e) => e.kind === 'outputReady')).to.have.length(1);
    expect(events.some((e) => e.kind === 'progress')).to.equal(true);

    await job.refresh();
    expect(job.status).to.equal('succeeded');
    const [output] = job.outputs;
    expect(output?.type).to.equal('image');
    const bytes = await output!.toBytes();
    expect(pngSize(Buffer.from(bytes))).to.not.equal(null);
    expect(bytes.length).to.equal(output!.sizeBytes);
    const partPath = path.join(data.dir, 'part.bin');
    await output!.toFile(partPath, { range: [10, 109] });
    expect(statSync(partPath).size).to.equal(100);
    expect(Buffer.compare(readFileSync(partPath), Buffer.from(bytes.subarray(10, 110)))).to.equal(0);

    const asV1 = await fetch(`${server.url}/api/v1/runs/${job.id}`, { headers: { authorization: `Bearer ${keys.main}` } });
    expect(asV1.status).to.equal(200);
    const run = (await asV1.json()) as { status: string; outputs: { asset_id: string }[] };
    expect(run.status).to.equal('succeeded');
    expect(run.outputs[0]?.asset_id).to.equal(output!.id);

    const stored = await comfy.assets.get(image.id!);
    expect(await stored.hash()).to.equal(await image.hash());
  });

  it('runs the same script a second time without uploading the image again', async () => {
    const calls: Recorded[] = [];
    const comfy = comfyOn(server, keys.main, calls);
    const image = comfy.assets.fromFile(imagePath);
    const job = await comfy.submit(blurOf(comfy, image));
    expect(calls.map((c) => `${c.method} ${c.path}`)).to.include('POST /api/v2/assets/from-hash');
    expect(calls.filter((c) => c.method === 'POST' && c.path === '/api/v2/assets')).to.deep.equal([]);
    expect(image.createdNew).to.equal(false);
    await job.wait(30_000);
    expect(job.status).to.equal('succeeded');
  });

  it('streams progress and the preview images of a sampler, for a graph without assets', async () => {
    fake.setExecutionMs(1500);
    try {
      const comfy = comfyOn(server, keys.main);
      const job = await comfy.submit(comfy.workflows.fromJson(structuredClone(TEXT_TO_IMAGE)));
      const events = await collect(job.events());
      expect(events[events.length - 1]).to.deep.include({ kind: 'statusChange', status: 'succeeded' });
      const progress = events.flatMap((e) => (e.kind === 'progress' ? [e] : []));
      expect(progress.length, 'progress events').to.be.above(1);
      expect(progress.map((p) => p.value), 'growing fractions').to.deep.equal([...progress.map((p) => p.value)].sort((a, b) => a - b));
      const done = progress[progress.length - 1];
      expect(done?.value).to.equal(1);
      expect(done?.nodesDone).to.be.above(0).and.equal(done?.nodesTotal);
      const previews = events.flatMap((e) => (e.kind === 'preview' ? [e] : []));
      expect(previews.length, 'preview events').to.be.above(0);
      expect(previews[0]?.contentType).to.equal('image/jpeg');
      expect([...(previews[0]?.data.subarray(0, 2) ?? [])]).to.deep.equal([0xff, 0xd8]);
    } finally {
      fake.setExecutionMs(100);
    }
  });

  it('refuses a checkpoint no backend has with invalid_workflow naming its node', async () => {
    const comfy = comfyOn(server, keys.main);
    const graph = structuredClone(TEXT_TO_IMAGE) as Record<string, { inputs: Record<string, unknown> }>;
    (graph['4'] as { inputs: Record<string, unknown> }).inputs['ckpt_name'] = 'nowhere.safetensors';
    const error = await comfy.submit(comfy.workflows.fromJson(graph)).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(InvalidWorkflow);
    expect(Object.keys((error as InvalidWorkflow).details?.['node_errors'] as object)).to.deep.equal(['4']);
  });

  it('cancels a running job', async () => {
    fake.setExecutionMs(20_000);
    try {
      const comfy = comfyOn(server, keys.main);
      const job = await comfy.submit(blurOf(comfy, comfy.assets.fromFile(imagePath)));
      await waitFor(async () => (await job.refresh()).status === 'running', 'the job to run', { timeoutMs: 15_000, intervalMs: 50 });
      await job.cancel();
      expect(['canceling', 'canceled']).to.include(job.status);
      await job.wait(15_000);
      expect(job.status).to.equal('canceled');
    } finally {
      fake.setExecutionMs(100);
    }
  });

  it('refuses a graph with an unknown node class with invalid_workflow naming the node, before anything is queued', async () => {
    const comfy = comfyOn(server, keys.main);
    const before = await fetch(`${server.url}/api/v2/jobs?limit=100`, { headers: { authorization: `Bearer ${keys.main}` } }).then((r) => r.json() as Promise<{ jobs: unknown[] }>);
    const graph = { ...structuredClone(BLUR), '9': { class_type: 'NoSuchNode', inputs: { image: ['3', 0] } } };
    const workflow = comfy.workflows.fromJson(graph);
    workflow.setInput('1', 'image', comfy.assets.fromFile(imagePath));
    const error = await comfy.submit(workflow).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(InvalidWorkflow);
    expect((error as InvalidWorkflow).code).to.equal('invalid_workflow');
    expect((error as InvalidWorkflow).details?.['node_errors']).to.have.property('9');
    const after = await fetch(`${server.url}/api/v2/jobs?limit=100`, { headers: { authorization: `Bearer ${keys.main}` } }).then((r) => r.json() as Promise<{ jobs: unknown[] }>);
    expect(after.jobs).to.have.length(before.jobs.length);
  });

  it('answers unauthorized for a bad key and not_found for the job of another account', async () => {
    const mine = await comfyOn(server, keys.main).jobs.get((await collectJobs(server, keys.main))[0] as string);
    const stranger = comfyOn(server, `rl_AAAAAAAAAA_${'b'.repeat(43)}`);
    expect(await stranger.jobs.get(mine.id).then(() => null, (e: unknown) => e)).to.be.instanceOf(Unauthorized);
    const other = comfyOn(server, keys.other);
    expect(await other.jobs.get(mine.id).then(() => null, (e: unknown) => e)).to.be.instanceOf(NotFound);
  });

  it('answers queue_full with Retry-After at the run limit of the tier', async () => {
    const comfy = comfyOn(server, keys.limited);
    const workflow = blurOf(comfy, comfy.assets.fromFile(imagePath));
    await comfy.submit(workflow);
    // The SDK's submit waits out queue_full for a minute; the protocol layer shows the answer itself.
    const low = new ComfyLow(server.url, keys.limited, { fetch: recordingFetch([]) });
    const error = await low.postJobs(workflow.json as Record<string, unknown>).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).code).to.equal('queue_full');
    expect((error as ApiError).httpStatus).to.equal(429);
    expect((error as ApiError).retryAfter).to.be.a('number').and.above(0);
  });

  it('answers forbidden to a tier whose workflows switch is off', async () => {
    const comfy = comfyOn(server, keys.starter);
    const error = await comfy.submit(blurOf(comfy, comfy.assets.fromFile(imagePath))).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(Forbidden);
    expect((error as Forbidden).code).to.equal('forbidden');
  });
});

async function collectJobs(server: ServerProcess, apiKey: string): Promise<string[]> {
  const page = (await (await fetch(`${server.url}/api/v2/jobs`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { jobs: { id: string }[] };
  return page.jobs.map((j) => j.id);
}
