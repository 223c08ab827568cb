/** `GET /runs/{id}/preview` and the stream's `preview` event, over HTTP on the in-memory ports. */
import { expect } from 'chai';
import { jsonInit, makeHarness, PNG, TRANSPORTS, type Harness } from './harness.js';
import { SseReader } from './sse-client.js';

const MINUTE = 60_000;

for (const transport of TRANSPORTS) {
  describe(`HTTP run previews (${transport})`, () => {
    let h: Harness;
    beforeEach(async () => (h = await makeHarness(transport)));
    afterEach(() => h.close());

    async function newRun(auth: Record<string, string>): Promise<string> {
      const res = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, auth));
      expect(res.status).to.equal(201);
      return ((await res.json()) as { run_id: string }).run_id;
    }

    it('answers 404 PREVIEW_NOT_FOUND before any preview, then the latest image, never cached, with its seq', async () => {
      const u = await h.user('ultra');
      const runId = await newRun(u.auth);
      const none = await h.request(`/api/v1/runs/${runId}/preview`, { headers: u.auth });
      expect(none.status).to.equal(404);
      expect(await none.json()).to.deep.equal({ error: { code: 'PREVIEW_NOT_FOUND', message: `Run ${runId} has no preview` } });

      await h.ports.previews.put(runId, { nodeId: '3', contentType: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xd9]) }, MINUTE);
      await h.ports.previews.put(runId, { nodeId: '3', contentType: 'image/png', bytes: PNG }, MINUTE);
      for (const path of [`/api/v1/runs/${runId}/preview`, `/api/v1/runs/${runId}/preview?seq=1`]) {
        const res = await h.request(path, { headers: u.auth });
        expect(res.status, path).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('image/png');
        expect(res.headers.get('cache-control')).to.equal('no-store');
        expect(res.headers.get('x-preview-seq')).to.equal('2');
        expect(res.headers.get('x-ratelimit-minute-limit')).to.not.equal(null);
        expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).to.equal(true);
      }
    });

    it("answers 404 RUN_NOT_FOUND for another account's run, even one with a preview", async () => {
      const [owner, other] = [await h.user('ultra'), await h.user('starter')];
      const runId = await newRun(owner.auth);
      await h.ports.previews.put(runId, { nodeId: null, contentType: 'image/png', bytes: PNG }, MINUTE);
      for (const path of [`/api/v1/runs/${runId}/preview`, '/api/v1/runs/not-a-run/preview']) {
        const res = await h.request(path, { headers: other.auth });
        expect(res.status, path).to.equal(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('RUN_NOT_FOUND');
      }
    });

    it('tells the run event stream of a new preview, with the URL to read it', async () => {
      const u = await h.user('ultra');
      const runId = await newRun(u.auth);
      const sse = new SseReader(await h.request(`/api/v1/runs/${runId}/events`, { headers: u.auth }));
      const first = await sse.next();
      expect(first?.event).to.equal('run');
      await h.ports.previews.put(runId, { nodeId: '3', contentType: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xd9]) }, MINUTE);
      const preview = await sse.next();
      expect(preview?.event).to.equal('preview');
      expect(Number(preview?.id)).to.be.greaterThan(Number(first?.id));
      const data = JSON.parse(preview?.data ?? '{}') as { url: string };
      expect(data).to.deep.equal({ run_id: runId, node_id: '3', seq: 1, content_type: 'image/jpeg', url: `/api/v1/runs/${runId}/preview?seq=1` });
      const image = await h.request(data.url, { headers: u.auth });
      expect(image.headers.get('x-preview-seq')).to.equal('1');
      await sse.cancel();
    });
  });
}
