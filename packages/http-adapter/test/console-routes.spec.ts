/** `/console`: the built page and its assets without a key, under a same-origin policy, and nothing else from its folder. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createRunloadApi, mergeLimits } from '@runload/core';
import { createInMemoryPorts } from '@runload/core/testing';
import { createHttpApp } from '@runload/http-adapter';

describe('the console routes', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-console-routes-'));
  const root = path.join(dir, 'dist');
  mkdirSync(path.join(root, 'assets'), { recursive: true });
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(path.join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(path.join(root, 'assets', '.hidden.js'), 'secret');
  writeFileSync(path.join(dir, 'outside.js'), 'secret');
  after(() => rmSync(dir, { recursive: true, force: true }));

  const appWith = (consoleRoot: string | undefined) =>
    createHttpApp(createRunloadApi(createInMemoryPorts(), mergeLimits({})), {
      maxUploadBytes: 1024,
      uploadDir: dir,
      health: async () => ({ ok: true }),
      log: () => undefined,
      consoleRoot,
    });
  const built = appWith(root);
  const get = (pathname: string, init?: RequestInit) => built.fetch(new Request(`http://runload.test${pathname}`, init));

  it('answers the page without a key, with a policy that keeps it on this origin', async () => {
    for (const pathname of ['/console', '/console/']) {
      const response = await get(pathname);
      expect(response.status, pathname).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).to.equal('no-cache');
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy.split('; ')).to.include.members(["default-src 'self'", "img-src 'self' blob: data:", "media-src 'self' blob: data:", "frame-ancestors 'none'"]);
      expect(policy).not.to.match(/unsafe-inline|unsafe-eval|https?:/);
      expect(await response.text()).to.equal('<!doctype html><title>console</title>');
    }
  });

  it('serves a built asset for a year, and HEAD the same without its body', async () => {
    const response = await get('/console/assets/index-abc123.js');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(await response.text()).to.equal('console.log(1)');
    const head = await get('/console/assets/index-abc123.js', { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal('14');
    expect(await head.text()).to.equal('');
  });

  it('serves nothing outside the build, no dot file and no unknown name', async () => {
    for (const pathname of ['/console/assets/.hidden.js', '/console/assets/..%2Foutside.js', '/console/assets/..%2F..%2Foutside.js', '/console/assets/missing.js', '/console/assets/index.html.bak']) {
      const response = await get(pathname);
      expect(response.status, pathname).to.equal(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('NOT_FOUND');
    }
  });

  it('says the console is not built when there is no build, and refuses other methods', async () => {
    const missing = await appWith(undefined).fetch(new Request('http://runload.test/console'));
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).to.match(/pnpm build/);
    const posted = await get('/console', { method: 'POST' });
    expect(posted.status).to.equal(405);
    expect(posted.headers.get('allow')).to.equal('GET, HEAD');
  });
});
