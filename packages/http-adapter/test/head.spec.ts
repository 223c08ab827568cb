/** HEAD is answered wherever GET is (RFC 9110 9.3.2): same status and headers, no body. */
import { expect } from 'chai';
import { makeHarness, PNG, TRANSPORTS, type Harness } from './harness.js';

/** The headers both answers must share: everything but the per-request ones. */
function comparable(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    if (!['date', 'x-request-id', 'connection', 'keep-alive', 'x-ratelimit-minute-remaining', 'transfer-encoding'].includes(key)) out[key] = value;
  });
  return out;
}

for (const transport of TRANSPORTS) {
  describe(`HEAD (${transport})`, () => {
    let h: Harness;
    beforeEach(async () => {
      h = await makeHarness(transport);
    });
    afterEach(() => h.close());

    async function same(pathname: string, headers: Record<string, string> = {}): Promise<Response> {
      const get = await h.request(pathname, { headers });
      const getBody = Buffer.from(await get.arrayBuffer());
      const head = await h.request(pathname, { method: 'HEAD', headers });
      expect(head.status, `HEAD ${pathname}`).to.equal(get.status);
      expect(Buffer.from(await head.arrayBuffer()).length, 'no body').to.equal(0);
      expect(comparable(head), `headers of HEAD ${pathname}`).to.deep.equal(comparable(get));
      expect(head.headers.get('content-length')).to.equal(String(getBody.length));
      expect(head.headers.get('x-request-id')).to.be.a('string');
      return head;
    }

    it('answers /healthz, the account, a run, a list, an asset and its content (whole and a range) like GET', async () => {
      const u = await h.user();
      await same('/healthz');
      await same('/api/v1/account', u.auth);
      const form = new FormData();
      form.append('file', new Blob([PNG]), 'a.png');
      const asset = (await (await h.request('/api/v1/assets', { method: 'POST', headers: u.auth, body: form })).json()) as { asset_id: string };
      await same(`/api/v1/assets/${asset.asset_id}`, u.auth);
      const whole = await same(`/api/v1/assets/${asset.asset_id}/content`, u.auth);
      expect(whole.headers.get('content-type')).to.equal('image/png');
      const part = await same(`/api/v1/assets/${asset.asset_id}/content`, { ...u.auth, range: 'bytes=1-3' });
      expect(part.status).to.equal(206);
      const run = (await (await h.request(`/api/v1/apps/${h.appVersionId}`, { method: 'POST', headers: { ...u.auth, 'content-type': 'application/json' }, body: JSON.stringify({ inputs: { '1:image': asset.asset_id } }) })).json()) as { run_id: string };
      await same(`/api/v1/runs/${run.run_id}`, u.auth);
      await same('/api/v1/runs', u.auth);
      await same(`/api/v1/apps/${h.appVersionId}`, u.auth);
      // Errors too: an unknown run, and a missing key.
      await same('/api/v1/runs/00000000-0000-4000-8000-000000000000', u.auth);
      await same('/api/v1/account');
    });
  });
}
