import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { RunloadClient, RunloadError } from '@runload/client';

type Handler = (request: Request) => Response | Promise<Response>;

/** A scripted server: each call takes the next handler; every request is recorded. */
function scripted(...handlers: Handler[]) {
  const requests: Request[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(request);
    const handler = handlers.shift();
    if (!handler) throw new Error(`unexpected request ${request.method} ${request.url}`);
    return handler(request);
  }) as typeof fetch;
  return { requests, fetchImpl };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const run = (status: string) => ({ run_id: 'r1', status, outputs: [] });

describe('@runload/client', () => {
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
  };
  beforeEach(() => {
    slept.length = 0;
  });

  it('retries 429 after Retry-After and 503 with backoff, then returns the answer', async () => {
    const server = scripted(
      () => json(429, { error: { code: 'RATE_LIMITED', message: 'slow down', retry_after: 2 } }, { 'retry-after': '2' }),
      () => json(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'backend unreachable' } }),
      () => json(200, { account_id: 'a' }),
    );
    const client = new RunloadClient({ baseUrl: 'http://x/', apiKey: 'rl_k', fetch: server.fetchImpl, sleep, retry: { baseDelayMs: 100 } });
    expect(await client.getAccount()).to.deep.equal({ account_id: 'a' });
    expect(server.requests.map((r) => r.url)).to.deep.equal(['http://x/api/v1/account', 'http://x/api/v1/account', 'http://x/api/v1/account']);
    expect(server.requests[0]?.headers.get('authorization')).to.equal('Bearer rl_k');
    expect(slept[0]).to.equal(2000);
    expect(slept[1]).to.be.within(100, 200);
  });

  it('throws typed errors with code, status and retry_after; retry can be turned off; long waits are not made', async () => {
    const limited = () => json(429, { error: { code: 'RATE_LIMITED', message: 'slow down', retry_after: 3 } }, { 'retry-after': '3' });
    const off = new RunloadClient({ baseUrl: 'http://x', apiKey: 'k', fetch: scripted(limited).fetchImpl, sleep, retry: false });
    const error = await off.getAccount().then(() => null, (e: unknown) => e);
    expect(RunloadError.is(error)).to.equal(true);
    expect(error).to.include({ code: 'RATE_LIMITED', status: 429, retryAfter: 3 });
    expect(slept).to.deep.equal([]);

    const quota = () => json(429, { error: { code: 'GPU_QUOTA_EXCEEDED', message: 'quota' } }, { 'retry-after': '86400' });
    const patient = new RunloadClient({ baseUrl: 'http://x', apiKey: 'k', fetch: scripted(quota).fetchImpl, sleep });
    expect(await patient.getAccount().then(() => null, (e: unknown) => e)).to.include({ code: 'GPU_QUOTA_EXCEEDED', retryAfter: 86400 });

    const forms = scripted(
      () => json(401, { error: 'Invalid API key' }),
      () => json(415, { success: false, error: 'Upload failed', reason: 'Unsupported file type' }),
      () => json(422, { error: { code: 'INVALID_INPUT', message: 'bad', details: [{ key: '2:x', reason: 'unknown input' }] } }),
    );
    const client = new RunloadClient({ baseUrl: 'http://x', apiKey: 'k', fetch: forms.fetchImpl, sleep });
    expect(await client.getAccount().catch((e: unknown) => e)).to.include({ code: 'UNAUTHORIZED', status: 401, message: 'Invalid API key' });
    expect(await client.uploadAsset(new Blob(['x'])).catch((e: unknown) => e)).to.include({ code: 'UPLOAD_FAILED', status: 415, details: 'Unsupported file type' });
    const invalid = (await client.createRun('v').catch((e: unknown) => e)) as RunloadError;
    expect(invalid).to.include({ code: 'INVALID_INPUT', status: 422 });
    expect(invalid.details).to.deep.equal([{ key: '2:x', reason: 'unknown input' }]);
  });

  it('waits on the event stream when the server has it', async () => {
    const stream = [
      ': keep-alive\n\n',
      `id: 1\nevent: run\ndata: ${JSON.stringify(run('queued'))}\n\n`,
      `id: 2\nevent: run\ndata: ${JSON.stringify(run('running'))}\r\n\r\nid: 3\nevent: run\n`,
      `data: ${JSON.stringify(run('succeeded'))}\n\n`,
    ];
    const server = scripted(
      () =>
        new Response(new Blob(stream).stream(), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    );
    const seen: string[] = [];
    const client = new RunloadClient({ baseUrl: 'http://x', apiKey: 'k', fetch: server.fetchImpl, sleep });
    const done = await client.waitForRun('r1', { onUpdate: (r) => seen.push(r.status) });
    expect(done.status).to.equal('succeeded');
    expect(seen).to.deep.equal(['queued', 'running', 'succeeded']);
    expect(server.requests[0]?.url).to.equal('http://x/api/v1/runs/r1/events');
  });

  it('polls when the stream is not there, respecting Retry-After', async () => {
    const server = scripted(
      () => json(404, { error: { code: 'NOT_FOUND', message: 'No route' } }),
      () => json(200, run('queued'), { 'retry-after': '4' }),
      () => json(200, run('running')),
      () => json(200, run('failed')),
    );
    const client = new RunloadClient({ baseUrl: 'http://x', apiKey: 'k', fetch: server.fetchImpl, sleep });
    expect((await client.waitForRun('r1', { pollIntervalMs: 250 })).status).to.equal('failed');
    expect(slept).to.deep.equal([4000, 250]);
    const missing = scripted(() => json(404, { error: { code: 'RUN_NOT_FOUND', message: 'Run r1 not found' } }));
    const other = new RunloadClient({ baseUrl: 'http://x', apiKey: 'k', fetch: missing.fetchImpl, sleep });
    expect(await other.waitForRun('r1').catch((e: unknown) => e)).to.include({ code: 'RUN_NOT_FOUND', status: 404 });
  });

  it('keeps its main entry free of Node modules (browser-safe)', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
      for (const match of source.matchAll(/^(import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)) {
        const target = match[2] as string;
        expect(target, `${file} imports ${target}`).to.match(/^\.\//);
        visit(target.slice(2).replace(/\.js$/, '.ts'));
      }
    };
    visit('index.ts');
    expect(seen.size).to.be.greaterThan(2);
  });
});
