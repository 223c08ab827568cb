/** The webhook transport against a real receiver on loopback: signing, outcomes, and the address checks after resolution. */
import { expect } from 'chai';
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { newQueuedRun, newWebhookSecret, type WebhookEvent } from '@runload/core';
import { HttpWebhookTransport, isPrivateAddress } from '@runload/http-adapter';

/** Resolves every name to 127.0.0.1, as a hostile DNS record would. */
const toLoopback = ((_host: string, options: unknown, callback: (e: null, a: string | LookupAddress[], f?: number) => void) => {
  if ((options as { all?: boolean }).all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}) as never;

describe('HTTP webhook transport', () => {
  let server: http.Server;
  let port: number;
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let status = 200;
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        if (status === 302) res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
        else res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    got.length = 0;
    status = 200;
  });
  after(() => new Promise((r) => server.close(r)));

  const event = (url: string): WebhookEvent => {
    const run = { ...newQueuedRun({ id: '6b0f6a35-3f0a-4c41-9d61-3f6f4d1c9a11', accountId: 'a', appVersionId: 'v', createdAt: new Date(0), inputs: {} }), status: 'succeeded' as const };
    return { id: 'msg_x_succeeded', accountId: 'a', runId: run.id, type: 'run.succeeded', url, occurredAt: new Date(1000), run, attempts: 0 };
  };

  it('signs the body so that standardwebhooks verifies it, and reports 2xx as delivered', async () => {
    const secret = newWebhookSecret();
    const outcome = await new HttpWebhookTransport({ allowPrivate: true }).deliver(event(`http://127.0.0.1:${port}/h`), secret);
    expect(outcome).to.deep.equal({ delivered: true, status: 200 });
    const payload = new Webhook(secret).verify(got[0]?.body ?? '', got[0]?.headers as Record<string, string>) as { type: string; timestamp: string; data: { run_id: string } };
    expect(payload).to.deep.include({ type: 'run.succeeded', timestamp: '1970-01-01T00:00:01.000Z' });
    expect(payload.data.run_id).to.equal('6b0f6a35-3f0a-4c41-9d61-3f6f4d1c9a11');
    expect(got[0]?.headers['webhook-id']).to.equal('msg_x_succeeded');
  });

  it('counts a non-2xx answer, a redirect (not followed) and a refused connection as failed attempts', async () => {
    const transport = new HttpWebhookTransport({ allowPrivate: true });
    status = 503;
    expect(await transport.deliver(event(`http://127.0.0.1:${port}/h`), newWebhookSecret())).to.deep.equal({ delivered: false, status: 503, error: 'HTTP 503' });
    status = 302;
    const redirected = await transport.deliver(event(`http://127.0.0.1:${port}/h`), newWebhookSecret());
    expect(redirected).to.deep.include({ delivered: false, status: 302 });
    expect(got).to.have.length(2);
    const refused = await transport.deliver(event('http://127.0.0.1:1/h'), newWebhookSecret());
    expect(refused.delivered).to.equal(false);
  });

  it('refuses, at creation and at delivery, a name that resolves to a private address, and sends nothing', async () => {
    const transport = new HttpWebhookTransport({ allowPrivate: false, lookup: toLoopback });
    expect(await transport.refusal(`http://hooks.example.com:${port}/h`)).to.match(/resolves to 127\.0\.0\.1/);
    const outcome = await transport.deliver(event(`http://hooks.example.com:${port}/h`), newWebhookSecret());
    expect(outcome.delivered).to.equal(false);
    expect((outcome as { error: string }).error).to.match(/refused/);
    expect(await transport.deliver(event(`http://127.0.0.1:${port}/h`), newWebhookSecret())).to.deep.include({ delivered: false });
    expect(got).to.have.length(0);
    // Allowed, the same name reaches the receiver.
    expect(await new HttpWebhookTransport({ allowPrivate: true, lookup: toLoopback }).deliver(event(`http://hooks.example.com:${port}/h`), newWebhookSecret())).to.deep.equal({ delivered: true, status: 200 });
  });

  it('knows the private, loopback, link-local and mapped ranges', () => {
    for (const a of ['10.0.0.1', '127.0.0.1', '169.254.169.254', '172.16.5.5', '192.168.0.1', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(isPrivateAddress(a), a).to.equal(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '[2a00:1450:4001::200e]']) expect(isPrivateAddress(a), a).to.equal(false);
  });

  it('refuses the IPv6 forms that embed an IPv4 address for a translator or tunnel, and the reserved IPv6 ranges', () => {
    // NAT64, IPv4-compatible, 6to4, SIIT (each here holding 127.0.0.1), Teredo, documentation, discard, site-local.
    for (const a of ['64:ff9b::7f00:1', '64:ff9b::8.8.8.8', '::127.0.0.1', '::7f00:1', '2002:7f00:1::', '::ffff:0:7f00:1', '2001:0:4136:e378::1', '2001:db8::1', '100::1', 'fec0::1', '[64:ff9b::7f00:1]']) {
      expect(isPrivateAddress(a), a).to.equal(true);
    }
    // Documentation and benchmarking IPv4 ranges, and broadcast.
    for (const a of ['192.0.2.1', '198.51.100.7', '203.0.113.9', '198.18.0.1', '255.255.255.255']) expect(isPrivateAddress(a), a).to.equal(true);
  });
});
