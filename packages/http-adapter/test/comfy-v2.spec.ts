/**
 * The Comfy API v2 routes over the in-memory core: what the official SDK's own tests do not reach
 * (refusals, dedup between accounts, idempotency, the fallback). Every answer is checked against
 * `/openapi-v2.json`.
 */
import { expect } from 'chai';
import { buildComfyV2Document } from '@runload/api-schema';
import { createResponseChecker, type ResponseChecker } from '@runload/api-schema/testing';
import { StaticNodeCatalog } from '@runload/core/testing';
import { jsonInit, leftovers, makeHarness, PNG, TRANSPORTS, type Harness } from './harness.js';
import { SseReader } from './sse-client.js';

/** As a backend's /object_info tells them, output_node included. */
const CATALOG = new StaticNodeCatalog({
  LoadImage: { input: { required: { image: [['example.png'], { image_upload: true }] } }, output_node: false },
  ImageBlur: { input: { required: { image: ['IMAGE'], blur_radius: ['INT', { min: 1, max: 31 }], sigma: ['FLOAT', { min: 0.1, max: 10 }] } }, output_node: false },
  SaveImage: { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING', {}] } }, output_node: true },
});

/** Answers under /api/v1 are checked against its document, the others against /openapi-v2.json. */
const v1 = createResponseChecker();
const v2 = createResponseChecker(buildComfyV2Document());
const CHECKER: ResponseChecker = {
  document: v2.document,
  check: (method, url, response) => (new URL(url, 'http://runload.test').pathname.startsWith('/api/v1') ? v1 : v2).check(method, url, response),
};

const graphWith = (image: unknown) => ({
  '1': { class_type: 'LoadImage', inputs: { image } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1.5 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' } },
});
const ref = (id: string) => ({ __type: 'core/ASSET', info: { id } });

function form(bytes: Buffer, fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [name, value] of Object.entries(fields)) f.append(name, value);
  f.append('file', new Blob([bytes]), fields['file_path'] ?? 'photo.png');
  return f;
}

interface V2Asset {
  id: string;
  hash: string;
  created_new?: boolean;
}

for (const transport of TRANSPORTS) {
  describe(`the Comfy API v2 routes (${transport})`, function () {
    let h: Harness;
    let alice: Awaited<ReturnType<Harness['user']>>;
    let bob: Awaited<ReturnType<Harness['user']>>;

    beforeEach(async () => {
      h = await makeHarness(transport, { nodeCatalog: CATALOG, checker: CHECKER, limits: { general_per_minute: 10_000 } });
      alice = await h.user('ultra');
      bob = await h.user('ultra');
    });
    afterEach(async () => {
      expect(h.unsettledUploads(), 'uploads left unsettled').to.equal(0);
      expect(leftovers(h.uploadDir), 'files in the upload directory').to.deep.equal([]);
      await h.close();
    });

    const upload = async (who: typeof alice, bytes: Buffer, fields: Record<string, string> = {}) =>
      h.request('/api/v2/assets', { method: 'POST', headers: who.auth, body: form(bytes, fields) });
    const uploaded = async (who: typeof alice, bytes: Buffer = PNG) => (await (await upload(who, bytes)).json()) as V2Asset;
    const submit = (who: typeof alice, body: unknown, headers: Record<string, string> = {}) => h.request('/api/v2/jobs', jsonInit(body, { ...who.auth, ...headers }));

    it('stores new bytes (201, created_new) and the same bytes again as a new asset over them (200)', async () => {
      const first = await upload(alice, PNG, { file_path: 'photo.png', content_type: 'image/png' });
      expect(first.status).to.equal(201);
      const asset = (await first.json()) as V2Asset & { url: string; file_path: string };
      expect(asset).to.include({ created_new: true, file_path: 'photo.png' });
      expect(asset.hash).to.match(/^blake3:[0-9a-f]{64}$/);
      const again = await upload(alice, PNG, { expected_hash: asset.hash });
      expect(again.status).to.equal(200);
      expect(((await again.json()) as V2Asset).created_new).to.equal(false);
    });

    it('refuses bytes that do not have the declared hash with hash_mismatch, and keeps nothing', async () => {
      const res = await upload(alice, PNG, { expected_hash: `blake3:${'0'.repeat(64)}` });
      expect(res.status).to.equal(409);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('hash_mismatch');
      const listed = (await (await h.request('/api/v1/assets', { headers: alice.auth })).json()) as { assets: unknown[] };
      expect(listed.assets).to.deep.equal([]);
    });

    it('answers an upload that is not media in the v2 envelope', async () => {
      const res = await upload(alice, Buffer.from('plain text, not an image'));
      expect(res.status).to.equal(415);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('unsupported_media_type');
    });

    it("finds bytes by hash for their owner only: another account's hash is 404 on HEAD and blob_not_found on from-hash", async () => {
      const asset = await uploaded(alice);
      expect((await h.request(`/api/v2/assets/by-hash/${asset.hash}`, { method: 'HEAD', headers: alice.auth })).status).to.equal(200);
      expect((await h.request(`/api/v2/assets/by-hash/${asset.hash}`, { method: 'HEAD', headers: bob.auth })).status).to.equal(404);
      expect((await h.request('/api/v2/assets/by-hash/not-a-hash', { method: 'HEAD', headers: alice.auth })).status).to.equal(404);
      const refused = await h.request('/api/v2/assets/from-hash', jsonInit({ hash: asset.hash }, bob.auth));
      expect(refused.status).to.equal(404);
      expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('blob_not_found');
      const minted = await h.request('/api/v2/assets/from-hash', jsonInit({ hash: asset.hash, file_path: 'again.png' }, alice.auth));
      expect(minted.status).to.equal(201);
      const copy = (await minted.json()) as V2Asset & { file_path: string };
      expect(copy).to.include({ hash: asset.hash, file_path: 'again.png', created_new: false });
      expect(copy.id).to.not.equal(asset.id);
    });

    it('refuses a UI-format graph, a malformed body, references to assets that are not yours, a link to no node and no output node, before anything is queued', async () => {
      const ui = await submit(alice, { workflow: { nodes: [], links: [] } });
      expect(ui.status).to.equal(422);
      expect(((await ui.json()) as { error: { code: string } }).error.code).to.equal('workflow_format_ui');
      for (const body of [{}, { workflow: 'x' }, { workflow: graphWith('a.png'), webhook_url: 'https://example.com' }]) {
        const res = await submit(alice, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('invalid_request');
      }
      const bobs = await uploaded(bob);
      for (const image of [ref(bobs.id), { __type: 'core/ASSET', info: {} }]) {
        const res = await submit(alice, { workflow: graphWith(image) });
        expect(res.status).to.equal(422);
        const body = (await res.json()) as { error: { code: string; details: { node_errors: Record<string, unknown> } } };
        expect(body.error.code).to.equal('missing_asset');
        expect(body.error.details.node_errors).to.have.property('1');
      }
      const mine = await uploaded(alice);
      const dangling = { ...graphWith(ref(mine.id)), '3': { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'out' } } };
      const broken = await submit(alice, { workflow: dangling });
      expect(broken.status).to.equal(422);
      const brokenBody = (await broken.json()) as { error: { code: string; details: { node_errors: Record<string, unknown> } } };
      expect(brokenBody.error.code).to.equal('invalid_workflow');
      expect(brokenBody.error.details.node_errors).to.deep.equal({
        '3': [{ field: 'images', reason: 'link_to_missing_node', message: 'input "images" links to node "9", which the workflow does not have' }],
      });
      const { '3': _saved, ...unsaved } = graphWith(ref(mine.id));
      const noOutput = await submit(alice, { workflow: unsaved });
      expect(noOutput.status).to.equal(422);
      const noOutputBody = (await noOutput.json()) as { error: { code: string; message: string } };
      expect(noOutputBody.error.code).to.equal('invalid_workflow');
      expect(noOutputBody.error.message).to.contain('no output node');
      const runs = (await (await h.request('/api/v2/jobs', { headers: alice.auth })).json()) as { jobs: unknown[] };
      expect(runs.jobs).to.deep.equal([]);
    });

    it('runs the same graph of two accounts, with their own images, as one hidden app version that is not listed as an app', async () => {
      const versions: string[] = [];
      for (const who of [alice, bob]) {
        const asset = await uploaded(who);
        const res = await submit(who, { workflow: graphWith(ref(asset.id)) });
        expect(res.status).to.equal(201);
        const job = (await res.json()) as { id: string; status: string; urls: { self: string } };
        expect(job.status).to.equal('queued');
        expect(job.urls.self).to.equal(`/api/v2/jobs/${job.id}`);
        const run = (await (await h.request(`/api/v1/runs/${job.id}`, { headers: who.auth })).json()) as { app_version_id: string; inputs: Record<string, string> };
        expect(run.inputs).to.deep.equal({ '1:image': asset.id });
        versions.push(run.app_version_id);
      }
      expect(versions[0]).to.equal(versions[1]);
      const apps = (await (await h.request('/api/v1/apps', { headers: alice.auth })).json()) as { apps: { app_version_id: string }[] };
      expect(apps.apps.map((a) => a.app_version_id)).to.not.include(versions[0]);
    });

    it('replays a job submitted again with the same Idempotency-Key, and refuses the key for another graph', async () => {
      const asset = await uploaded(alice);
      const key = { 'idempotency-key': 'job-1' };
      const first = await submit(alice, { workflow: graphWith(ref(asset.id)) }, key);
      const again = await submit(alice, { workflow: graphWith(ref(asset.id)) }, key);
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotency-replayed')).to.equal('true');
      expect(((await again.json()) as { id: string }).id).to.equal(((await first.json()) as { id: string }).id);
      const other = await submit(alice, { workflow: { ...graphWith(ref(asset.id)), '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 5, sigma: 1 } } } }, key);
      expect(other.status).to.equal(422);
      expect(((await other.json()) as { error: { code: string } }).error.code).to.equal('idempotency_key_reuse');
    });

    it("names the running node's class and counts a job's nodes from its graph, in the job, the list and the event stream", async () => {
      const asset = await uploaded(alice);
      const { id } = (await (await submit(alice, { workflow: graphWith(ref(asset.id)) })).json()) as { id: string };
      type V2Job = { id: string; progress: Record<string, unknown> | null };
      const job = async () => (await (await h.request(`/api/v2/jobs/${id}`, { headers: alice.auth })).json()) as V2Job;
      // The run as a dispatcher records it: node 2 (the blur) running, one and a half nodes of three done.
      await h.ports.runs.update(id, { status: 'running', startedAt: h.clock.now(), progress: { value: 1.5, max: 3, nodeId: '2' } });
      const running = { nodes_done: 1, nodes_total: 3, current_node: '2', current_node_class: 'ImageBlur', message: '1/3 nodes, running ImageBlur' };
      expect((await job()).progress).to.deep.include(running);
      const listed = (await (await h.request('/api/v2/jobs', { headers: alice.auth })).json()) as { jobs: V2Job[] };
      expect(listed.jobs.find((j) => j.id === id)?.progress).to.deep.include(running);
      const sse = new SseReader(await h.request(`/api/v2/jobs/${id}/events`, { headers: alice.auth }));
      try {
        let event = await sse.next();
        while (event && event.event !== 'progress') event = await sse.next();
        expect(JSON.parse(event?.data ?? 'null')).to.deep.include(running);
      } finally {
        await sse.cancel();
      }
      // Every node taken from ComfyUI's cache: no progress was recorded, and the graph's nodes count.
      await h.ports.runs.update(id, { status: 'succeeded', finishedAt: h.clock.now(), progress: null });
      expect((await job()).progress).to.deep.include({ value: 1, nodes_done: 3, nodes_total: 3, current_node: null });
    });

    it('carries the rate-limit headers, the run windows on POST /jobs', async () => {
      const asset = await uploaded(alice);
      const res = await submit(alice, { workflow: graphWith(ref(asset.id)) });
      expect(res.headers.get('x-ratelimit-minute-limit')).to.be.a('string');
      expect(res.headers.get('x-ratelimit-hour-limit')).to.be.a('string');
      expect(res.headers.get('x-gpu-quota-limit')).to.be.a('string');
    });

    it('answers unknown routes and wrong methods in the v2 envelope, after the key', async () => {
      const anonymous = await h.request('/api/v2/nothing');
      expect(anonymous.status).to.equal(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).to.equal('unauthorized');
      const unknown = await h.request('/api/v2/nothing', { headers: alice.auth });
      expect(unknown.status).to.equal(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).to.equal('not_found');
      const wrong = await h.request('/api/v2/jobs', { method: 'DELETE', headers: alice.auth });
      expect(wrong.status).to.equal(405);
      expect(wrong.headers.get('allow')).to.equal('POST, GET, HEAD');
    });

    it('serves its health without a key and its own OpenAPI document', async () => {
      const health = await h.request('/api/v2/health');
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.equal({ status: 'ok' });
      const doc = (await (await h.request('/openapi-v2.json')).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).to.include.members(['/api/v2/jobs', '/api/v2/assets/by-hash/{hash}', '/api/v2/jobs/{id}/events']);
    });
  });
}
