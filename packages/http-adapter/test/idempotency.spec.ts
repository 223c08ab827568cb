/** Idempotency-Key on the creating endpoints, over HTTP on the in-memory ports. */
import { expect } from 'chai';
import { jsonInit, makeHarness, PNG, TRANSPORTS, type Harness } from './harness.js';

for (const transport of TRANSPORTS) {
  describe(`HTTP idempotency keys (${transport})`, () => {
    let h: Harness;
    beforeEach(async () => (h = await makeHarness(transport)));
    afterEach(() => h.close());

    const runBody = () => ({ inputs: { '2:blur_radius': 7 } });
    const post = (auth: Record<string, string>, key: string, body: unknown = runBody()) =>
      h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit(body, { ...auth, 'idempotency-key': key }));
    const runsOf = async (accountId: string) => (await h.ports.runs.listByAccount(accountId, { limit: 100 })).runs;

    it('replays the stored response to the same request and creates no second run nor spends run budget', async () => {
      const u = await h.user();
      const first = await post(u.auth, 'order-1');
      expect(first.status).to.equal(201);
      const firstBody = await first.json();
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const remaining = first.headers.get('x-ratelimit-hour-remaining');

      // The same JSON with its keys in another order and other spacing is the same request.
      const again = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit('{ "inputs" : { "2:blur_radius": 7 } }', { ...u.auth, 'idempotency-key': 'order-1' }));
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.headers.get('location')).to.equal(first.headers.get('location'));
      expect(await again.json()).to.deep.equal(firstBody);
      expect(again.headers.get('x-ratelimit-hour-remaining')).to.equal(remaining);
      expect(await runsOf(u.accountId)).to.have.length(1);
    });

    it('refuses the key with a different body or on the other run endpoint (422 IDEMPOTENCY_KEY_REUSED)', async () => {
      const u = await h.user();
      expect((await post(u.auth, 'k')).status).to.equal(201);
      const other = await post(u.auth, 'k', { inputs: { '2:blur_radius': 8 } });
      expect(other.status).to.equal(422);
      expect(((await other.json()) as { error: { code: string } }).error.code).to.equal('IDEMPOTENCY_KEY_REUSED');
      const viaRuns = await h.request('/api/v1/runs', jsonInit({ app_version_id: h.appVersionId, ...runBody() }, { ...u.auth, 'idempotency-key': 'k' }));
      expect(viaRuns.status).to.equal(422);
      expect(await runsOf(u.accountId)).to.have.length(1);
    });

    it('keeps keys per account', async () => {
      const [a, b] = [await h.user(), await h.user()];
      expect((await post(a.auth, 'shared')).headers.get('idempotent-replayed')).to.equal(null);
      const other = await post(b.auth, 'shared');
      expect(other.status).to.equal(201);
      expect(other.headers.get('idempotent-replayed')).to.equal(null);
    });

    it('stores no error: after a refused request the same key creates the run', async () => {
      const u = await h.user();
      const bad = await post(u.auth, 'retry-me', { inputs: { '2:blur_radius': 'seven' } });
      expect(bad.status).to.equal(422);
      const good = await post(u.auth, 'retry-me', { inputs: { '2:blur_radius': 'seven' } });
      expect(good.status).to.equal(422);
      expect(((await good.json()) as { error: { code: string } }).error.code).to.equal('INVALID_INPUT');
      expect((await post(u.auth, 'retry-me')).status).to.equal(201);
    });

    it('refuses a malformed key with 400 INVALID_REQUEST and creates nothing', async () => {
      const u = await h.user();
      const res = await post(u.auth, 'x'.repeat(256));
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('INVALID_REQUEST');
      expect(await runsOf(u.accountId)).to.have.length(0);
    });

    it('answers 10 concurrent requests with one key with one run, the others replayed or told to retry (409 + Retry-After: 1)', async () => {
      const u = await h.user('ultra');
      const answers = await Promise.all(Array.from({ length: 10 }, () => post(u.auth, 'burst')));
      const created = answers.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      expect(created).to.have.length(1);
      for (const r of answers.filter((a) => a.status === 409)) {
        expect(r.headers.get('retry-after')).to.equal('1');
        expect(((await r.json()) as { error: { code: string } }).error.code).to.equal('IDEMPOTENCY_KEY_IN_USE');
      }
      expect(answers.every((r) => r.status === 201 || r.status === 409)).to.equal(true);
      expect(await runsOf(u.accountId)).to.have.length(1);
    });

    it('forgets a key after 24 hours, and purges it', async () => {
      const u = await h.user('ultra');
      const first = (await (await post(u.auth, 'daily')).json()) as { run_id: string };
      h.clock.advance(24 * 3600_000 - 1);
      expect(((await (await post(u.auth, 'daily')).json()) as { run_id: string }).run_id).to.equal(first.run_id);
      h.clock.advance(1);
      const later = await post(u.auth, 'daily', { inputs: { '2:blur_radius': 9 } });
      expect(later.status).to.equal(201);
      expect(later.headers.get('idempotent-replayed')).to.equal(null);
      h.clock.advance(24 * 3600_000);
      expect(await h.api.idempotency.purgeExpired()).to.equal(1);
    });

    it('replays an upload of the same bytes and name, and refuses other bytes under the key', async () => {
      const u = await h.user();
      const upload = (bytes: Buffer, name: string) => {
        const f = new FormData();
        f.append('file', new Blob([bytes]), name);
        return h.request('/api/v1/assets', { method: 'POST', headers: { ...u.auth, 'idempotency-key': 'up-1' }, body: f });
      };
      const first = await upload(PNG, 'cat.png');
      expect(first.status).to.equal(201);
      const body = await first.json();
      const again = await upload(PNG, 'cat.png');
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await again.json()).to.deep.equal(body);
      const renamed = await upload(PNG, 'dog.png');
      expect(renamed.status).to.equal(422);
      // The copies stored by the replay and the refused request were removed again.
      expect(await h.ports.assets.countBySha256((body as { sha256: string }).sha256)).to.equal(1);
    });
  });
}
