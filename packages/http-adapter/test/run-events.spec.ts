/** `GET /runs/{id}/events` over HTTP on the in-memory ports. */
import { expect } from 'chai';
import v8 from 'node:v8';
import vm from 'node:vm';
import { runChangeOf, type RunRepository } from '@runload/core';
import { waitFor } from '@runload/core/testing';
import { jsonInit, makeHarness, TRANSPORTS, type Harness } from './harness.js';
import { SseReader } from './sse-client.js';

const until = (probe: () => boolean | Promise<boolean>, what: string) => waitFor(probe, what);

for (const transport of TRANSPORTS) {
  describe(`HTTP run event stream (${transport})`, () => {
    let h: Harness;
    beforeEach(async () => (h = await makeHarness(transport, { limits: { general_per_minute: 100_000 } })));
    afterEach(() => h.close());

    async function newRun(auth: Record<string, string>): Promise<string> {
      const res = await h.request(`/api/v1/apps/${h.appVersionId}`, jsonInit({ inputs: {} }, auth));
      expect(res.status).to.equal(201);
      return ((await res.json()) as { run_id: string }).run_id;
    }
    /** Changes a run as the dispatcher's lifecycle does: in the storage, then announced to the streams. */
    const change = async (runId: string, patch: Parameters<RunRepository['update']>[1]) => {
      const run = await h.ports.runs.update(runId, patch);
      if (run) h.ports.workSignal.announce(runChangeOf(run));
    };
    const open = (auth: Record<string, string>, runId: string) => h.request(`/api/v1/runs/${runId}/events`, { headers: auth });
    /** `n` streams on the run, each past its first record. */
    const openMany = async (auth: Record<string, string>, runId: string, n: number) => {
      const readers: SseReader[] = [];
      for (let i = 0; i < n; i += 1) {
        const r = new SseReader(await open(auth, runId));
        await r.next();
        readers.push(r);
      }
      return readers;
    };

    it('sends the current record, every change with increasing ids, and ends after the terminal record', async () => {
      const u = await h.user('ultra');
      const runId = await newRun(u.auth);
      const res = await open(u.auth, runId);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(res.headers.get('x-ratelimit-minute-limit')).to.equal('100000');
      const sse = new SseReader(res);
      const first = await sse.next();
      expect(first?.event).to.equal('run');
      expect(JSON.parse(first?.data ?? '{}')).to.deep.include({ run_id: runId, status: 'queued', queue_position: 0 });

      const seen: Record<string, unknown>[] = [];
      const step = async (patch: Parameters<RunRepository['update']>[1]) => {
        await change(runId, patch);
        const e = await sse.next();
        seen.push({ id: Number(e?.id), ...(JSON.parse(e?.data ?? '{}') as Record<string, unknown>) });
      };
      await step({ status: 'running', startedAt: h.clock.now() });
      await step({ progress: { value: 1, max: 4, nodeId: '2' } });
      await step({ progress: { value: 3, max: 4, nodeId: '2' } });
      await step({ status: 'succeeded', finishedAt: h.clock.now(), progress: null });
      expect(seen.map((e) => [e['status'], (e['progress'] as { value: number } | null)?.value ?? null])).to.deep.equal([
        ['running', null],
        ['running', 1],
        ['running', 3],
        ['succeeded', null],
      ]);
      const ids = [Number(first?.id), ...seen.map((e) => e['id'] as number)];
      expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).to.equal(ids.length);
      expect(await sse.next()).to.equal(null);
      await until(() => h.api.runStreams.openCount() === 0, 'the stream to be forgotten');
    });

    it('ends every open stream, without a terminal record, when the instance stops, and frees its slots', async () => {
      const u = await h.user('ultra');
      const streams = await Promise.all([newRun(u.auth), newRun(u.auth)].map(async (run) => new SseReader(await open(u.auth, await run))));
      for (const sse of streams) expect((await sse.next())?.event).to.equal('run');
      await h.api.runStreams.closeAll();
      for (const sse of streams) expect(await sse.next(), 'the stream ends').to.equal(null);
      expect(h.api.runStreams.openCount()).to.equal(0);
      // Both slots are free again: two holders fit under a maximum of two.
      const until = new Date(h.clock.nowMs() + 60_000);
      for (const holder of ['a', 'b']) expect(await h.ports.streamSlots.acquire(u.accountId, holder, 2, h.clock.now(), until), `slot ${holder}`).to.equal(true);
    });

    it('counts an open stream once against the general limit, however many events it carries', async () => {
      const u = await h.user('ultra');
      const runId = await newRun(u.auth);
      const remaining = async () => Number((await h.request('/api/v1/account', { headers: u.auth })).headers.get('x-ratelimit-minute-remaining'));
      const before = await remaining();
      const res = await open(u.auth, runId);
      expect(Number(res.headers.get('x-ratelimit-minute-remaining'))).to.equal(before - 1);
      const sse = new SseReader(res);
      await sse.next();
      for (const value of [1, 2, 3]) {
        await change(runId, { status: 'running', progress: { value, max: 3, nodeId: '2' } });
        await sse.next();
      }
      expect(await remaining()).to.equal(before - 2);
      await sse.cancel();
    });

    it('answers HEAD like GET without opening a stream', async () => {
      const u = await h.user('ultra');
      const runId = await newRun(u.auth);
      const head = await h.request(`/api/v1/runs/${runId}/events`, { method: 'HEAD', headers: u.auth });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(h.api.runStreams.openCount()).to.equal(0);
    });

    it('answers a finished run with its record and ends; another account gets 404 RUN_NOT_FOUND', async () => {
      const [u, other] = [await h.user('ultra'), await h.user('ultra')];
      const runId = await newRun(u.auth);
      await h.ports.runs.update(runId, { status: 'canceled', finishedAt: h.clock.now() });
      const sse = new SseReader(await open(u.auth, runId));
      expect(JSON.parse((await sse.next())?.data ?? '{}')).to.deep.include({ status: 'canceled' });
      expect(await sse.next()).to.equal(null);
      const refused = await open(other.auth, runId);
      expect(refused.status).to.equal(404);
      expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('RUN_NOT_FOUND');
    });

    it('refuses the 21st open stream of an account with 429 RATE_LIMITED, and frees a slot as soon as a client goes away', async () => {
      const u = await h.user('ultra');
      const runId = await newRun(u.auth);
      const readers = await openMany(u.auth, runId, 20);
      const refused = await open(u.auth, runId);
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('RATE_LIMITED');
      // Another account is not affected.
      const other = await h.user('ultra');
      const theirs = await open(other.auth, await newRun(other.auth));
      expect(theirs.status).to.equal(200);
      await new SseReader(theirs).cancel();

      await readers.pop()?.cancel();
      await until(async () => {
        const again = await open(u.auth, runId);
        if (again.status !== 200) return false;
        readers.push(new SseReader(again));
        return true;
      }, 'the slot of the closed stream');
      for (const r of readers) await r.cancel();
      await until(() => h.api.runStreams.openCount() === 0, 'every stream to be forgotten');
    });

    it('holds a stream slot 15 s past its last renewal, so a killed instance frees its streams within 15 s', async () => {
      const u = await h.user('ultra');
      const runId = await newRun(u.auth);
      const readers = await openMany(u.auth, runId, 20);
      const opened = h.clock.nowMs();
      const newcomer = (at: number) => h.ports.streamSlots.acquire(u.accountId, `newcomer-${at}`, 20, new Date(at), new Date(at + 15_000));
      expect(await newcomer(opened + 14_999), 'the 20 slots still held').to.equal(false);
      expect(await newcomer(opened + 15_001), 'lapsed, as a dead instance renews them no more').to.equal(true);
      for (const r of readers) await r.cancel();
      await until(() => h.api.runStreams.openCount() === 0, 'every stream to be forgotten');
    });

    if (transport === 'node') {
      it('keeps memory flat over 1,000 streams opened and closed', async function () {
        this.timeout(120_000);
        v8.setFlagsFromString('--expose-gc');
        const gc = vm.runInNewContext('gc') as () => void;
        const u = await h.user('ultra');
        const runId = await newRun(u.auth);
        const cycle = async (n: number) => {
          for (let i = 0; i < n; i += 20) {
            const readers = await Promise.all(Array.from({ length: 20 }, async () => {
              const r = new SseReader(await open(u.auth, runId));
              await r.next();
              return r;
            }));
            for (const r of readers) await r.cancel();
            await until(() => h.api.runStreams.openCount() === 0, 'the batch to close');
          }
        };
        await cycle(100); // warm up
        gc();
        const before = process.memoryUsage().heapUsed;
        await cycle(1000);
        gc();
        const grown = process.memoryUsage().heapUsed - before;
        expect(h.api.runStreams.openCount()).to.equal(0);
        expect(grown, `heap grew ${(grown / 1048576).toFixed(1)} MiB`).to.be.below(8 * 1048576);
      });
    }
  });
}
