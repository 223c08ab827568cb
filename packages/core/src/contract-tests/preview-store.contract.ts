/** The contract of PreviewStore, run by the in-memory store and the Redis store. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Preview, PreviewStore } from '../ports/preview-store.js';
import { waitFor } from '../testing/wait-for.js';

export interface PreviewStoreFixture {
  readonly store: PreviewStore;
  /** The store of a second instance sharing the same backend, when the adapter has one. */
  readonly peer?: PreviewStore;
  teardown?(): Promise<void>;
}

const MINUTE = 60_000;
const jpeg = (fill: number, size = 64): Preview => ({ nodeId: '3', contentType: 'image/jpeg', bytes: new Uint8Array(size).fill(fill) });

/** `shared`: the adapter reaches other instances (its fixture provides `peer`). */
export function describePreviewStoreContract(name: string, setup: () => Promise<PreviewStoreFixture>, options: { shared: boolean }): void {
  describe(`PreviewStore contract: ${name}`, () => {
    let f: PreviewStoreFixture;
    beforeEach(async () => (f = await setup()));
    afterEach(async () => f.teardown?.());

    it('keeps only the latest preview of a run, with a sequence number that grows', async () => {
      const run = randomUUID();
      expect(await f.store.latest(run)).to.equal(null);
      const first = await f.store.put(run, jpeg(1), MINUTE);
      const second = await f.store.put(run, { nodeId: null, contentType: 'image/png', bytes: new Uint8Array([9, 8, 7]) }, MINUTE);
      expect(second).to.be.greaterThan(first);
      const latest = await f.store.latest(run);
      expect(latest).to.deep.include({ runId: run, seq: second, nodeId: null, contentType: 'image/png' });
      expect([...(latest?.bytes ?? [])]).to.deep.equal([9, 8, 7]);
    });

    it('keeps the previews of runs apart, and tells their info without bytes in one read', async () => {
      const [a, b, none] = [randomUUID(), randomUUID(), randomUUID()];
      await f.store.put(a, jpeg(1), MINUTE);
      await f.store.put(a, jpeg(2), MINUTE);
      const seqB = await f.store.put(b, jpeg(3, 1024 * 1024), MINUTE);
      const info = await f.store.info([a, b, none]);
      expect([...info.keys()].sort()).to.deep.equal([a, b].sort());
      expect(info.get(b)).to.deep.equal({ runId: b, seq: seqB, nodeId: '3', contentType: 'image/jpeg' });
      expect((await f.store.latest(b))?.bytes.length).to.equal(1024 * 1024);
      expect((await f.store.latest(a))?.bytes[0]).to.equal(2);
    });

    it('gives every one of many concurrent puts its own sequence number', async () => {
      const run = randomUUID();
      const seqs = await Promise.all(Array.from({ length: 20 }, (_, i) => f.store.put(run, jpeg(i), MINUTE)));
      expect(new Set(seqs).size).to.equal(20);
      expect((await f.store.latest(run))?.seq).to.equal(Math.max(...seqs));
    });

    it('forgets a preview once its keep has passed, and finish sets a new keep', async () => {
      const [short, finished, other] = [randomUUID(), randomUUID(), randomUUID()];
      await f.store.put(short, jpeg(1), 150);
      await f.store.put(finished, jpeg(1), MINUTE);
      await f.store.put(other, jpeg(1), MINUTE);
      await f.store.finish(finished, 150);
      await f.store.finish(randomUUID(), 150);
      await waitFor(async () => (await f.store.latest(short)) === null && (await f.store.latest(finished)) === null, 'the previews to expire');
      expect((await f.store.info([short, finished, other])).size).to.equal(1);
      expect(await f.store.latest(other)).to.not.equal(null);
    });

    if (!options.shared) return;
    it('shares previews with another instance', async () => {
      if (!f.peer) throw new Error('a shared preview store fixture must provide a peer');
      const run = randomUUID();
      const seq = await f.store.put(run, jpeg(5), MINUTE);
      expect((await f.peer.info([run])).get(run)?.seq).to.equal(seq);
      expect((await f.peer.put(run, jpeg(6), MINUTE))).to.be.greaterThan(seq);
      expect((await f.store.latest(run))?.bytes[0]).to.equal(6);
    });
  });
}
