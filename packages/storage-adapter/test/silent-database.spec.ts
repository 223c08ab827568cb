/**
 * A PostgreSQL that accepts connections and never answers (a frozen server, a black-holed
 * network): every query is bounded and fails STORAGE_UNAVAILABLE, as a refused connection does.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CoreError } from '@runload/core';
import { KnexRunRepository, migrate, openDatabase } from '@runload/storage-adapter';

const PG_URL = process.env['RUNLOAD_TEST_PG_URL'];

/** A TCP relay to PostgreSQL that can hold back the server's answers (a frozen server), with the connections left open. */
async function freezableRelay(target: URL): Promise<{ port: number; freeze(): void; thaw(): void; close(): Promise<void> }> {
  let frozen = false;
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    if (!frozen) upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      frozen = true;
      for (const { upstream } of pairs) {
        upstream.unpipe();
        upstream.pause();
      }
    },
    thaw: () => {
      frozen = false;
      for (const { client, upstream } of pairs) upstream.pipe(client);
    },
    close: async () => {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a PostgreSQL that stops answering', function () {
  this.timeout(30_000);
  before(function () {
    if (!PG_URL) {
      if (process.env['CI'] === 'true') throw new Error('RUNLOAD_TEST_PG_URL is required with CI=true');
      this.skip();
    }
  });

  it('fails a query with STORAGE_UNAVAILABLE once its time is up, then serves again once the server answers', async () => {
    const target = new URL(PG_URL as string);
    const relay = await freezableRelay(target);
    const url = new URL(target);
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-silent-'));
    const schema = `silent_${randomBytes(6).toString('hex')}`;
    const db = openDatabase({ url: url.toString(), dataDir: dir, schema, queryTimeoutMs: 1000, poolMax: 2 });
    try {
      const runs = new KnexRunRepository(db);
      await migrate(db);
      relay.freeze();
      const error = await runs.get('00000000-0000-4000-8000-000000000001').catch((e: unknown) => e);
      expect(CoreError.hasCode(error, 'STORAGE_UNAVAILABLE'), String(error)).to.equal(true);
      const again = await runs.get('00000000-0000-4000-8000-000000000001').catch((e: unknown) => e);
      expect(CoreError.hasCode(again, 'STORAGE_UNAVAILABLE'), String(again)).to.equal(true);
      relay.thaw();
      expect(await runs.get('00000000-0000-4000-8000-000000000001'), 'served again once it answers').to.equal(null);
    } finally {
      await db.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await db.destroy();
      await relay.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
