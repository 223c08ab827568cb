/**
 * Benchmark 6: integrations. Webhook delivery latency from a run's end (the fake ComfyUI
 * finishing) to a receiver on loopback, and how fast one instance drains a backlog of
 * deliveries; then 1,000 concurrent event streams on one instance with the server's memory and
 * CPU. `node … bench/integrations.ts [--quick]` runs this section alone.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { makePng, startFakeComfyUI } from '@runload/fake-comfyui';
import { loadConfig } from '../packages/server/src/config.js';
import { openRuntime } from '../packages/server/src/runtime.js';
import { openDatabase } from '@runload/storage-adapter';
import { cpuSeconds, peakRssMiB, percentile } from './harness.js';
import { prepareRunload, startOn } from './http-paths.js';

const now = () => performance.timeOrigin + performance.now();
const ms = (v: number) => `${v.toFixed(1)} ms`;
const verdict = (met: boolean) => (met ? 'meets the target' : '**misses the target**');

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/** A receiver that notes when each webhook arrived. */
async function startReceiver(): Promise<{ url: string; arrivals: Map<string, number>; count(): number; close(): Promise<void> }> {
  const arrivals = new Map<string, number>();
  let count = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const at = now();
      count += 1;
      const runId = (JSON.parse(body) as { data: { run_id: string } }).data.run_id;
      if (!arrivals.has(runId)) arrivals.set(runId, at);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    count: () => count,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function until(probe: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function benchWebhooks(quick: boolean, say: (l: string) => void): Promise<void> {
  const runs = quick ? 30 : 300;
  const fake = await startFakeComfyUI({ executionMs: 0 });
  const receiver = await startReceiver();
  const data = await prepareRunload('webhooks', { RUNLOAD_WEBHOOK_ALLOW_PRIVATE: 'true' }, fake.url);
  const server = await startOn(data);
  const auth = { authorization: `Bearer ${data.key}`, 'content-type': 'application/json' };
  const form = new FormData();
  form.append('file', new Blob([makePng(8, 8, () => [1, 2, 3, 255])]), 'in.png');
  const image = ((await (await fetch(`${server.url}/api/v1/assets`, { method: 'POST', headers: { authorization: auth.authorization }, body: form })).json()) as { asset_id: string }).asset_id;
  const create = async () => {
    const res = await fetch(`${server.url}/api/v1/apps/${data.app}`, { method: 'POST', headers: auth, body: JSON.stringify({ inputs: { '1:image': image }, webhook: receiver.url }) });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { run_id: string }).run_id;
  };

  say('## 6. Integrations: webhooks and event streams');
  const latencies: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const runId = await create();
    await until(() => receiver.arrivals.has(runId), `the webhook of run ${runId}`);
    const finished = fake.finishedAt.get(runId);
    if (finished === undefined) throw new Error(`run ${runId}: the fake never ran it`);
    latencies.push((receiver.arrivals.get(runId) as number) - finished);
  }
  const p50 = percentile(latencies, 50);
  say(`- webhook delivery, from the backend finishing the run to the receiver getting \`run.succeeded\` (one run at a time, SQLite): p50 ${ms(p50)}, p99 ${ms(percentile(latencies, 99))} over ${runs} runs (target p50 < 50 ms): ${verdict(p50 < 50)}`);

  // A backlog: every event delivered so far made pending again in one statement, then drained by the instance's worker.
  const before = receiver.count();
  const db = openDatabase({ url: null, dataDir: data.dir });
  const backlog = Number(await db('webhook_outbox').update({ state: 'pending', attempts: 0, next_attempt_at: 0, lease_owner: null, lease_expires_at: null }));
  await db.destroy();
  let first = 0;
  await until(() => {
    if (first === 0 && receiver.count() > before) first = now();
    return receiver.count() >= before + backlog;
  }, 'the backlog to drain');
  const rate = (backlog - 1) / ((now() - first) / 1000);
  say(`- deliveries per second, one instance draining a backlog of ${backlog} events to one receiver on loopback (SQLite): ${rate.toFixed(0)} deliveries/s`);
  await server.stop();
  await receiver.close();
  await fake.close();
}

async function benchStreams(quick: boolean, say: (l: string) => void): Promise<void> {
  const streams = quick ? 200 : 1000;
  const perAccount = 20;
  const fake = await startFakeComfyUI({ executionMs: 0 });
  fake.pause(); // the runs stay queued or running: every stream stays open
  const data = await prepareRunload('streams', {}, fake.url);
  // Accounts and keys through the API in this process (as the CLI does), 20 streams each.
  const runtime = await openRuntime(loadConfig({ ...process.env, ...data.env }), { dispatch: false });
  const keys: string[] = [];
  for (let i = 0; i < streams / perAccount; i += 1) {
    const account = await runtime.api.accounts.create(`streams-${i}`, 'ultra');
    keys.push((await runtime.api.apiKeys.create(account.id)).apiKey);
  }
  await runtime.close();
  const server = await startOn(data);
  const rssBefore = rssMiB(server.pid);
  const controllers: AbortController[] = [];
  let opened = 0;
  for (const key of keys) {
    await Promise.all(
      Array.from({ length: perAccount }, async () => {
        const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
        const created = await fetch(`${server.url}/api/v1/apps/${data.app}`, { method: 'POST', headers, body: '{"inputs":{}}' });
        const runId = ((await created.json()) as { run_id: string }).run_id;
        const abort = new AbortController();
        const res = await fetch(`${server.url}/api/v1/runs/${runId}/events`, { headers, signal: abort.signal });
        if (res.status !== 200) throw new Error(`stream: ${res.status}`);
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        await reader.read(); // the current record
        void (async () => {
          for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
        })();
        controllers.push(abort);
        opened += 1;
      }),
    );
  }
  const seconds = quick ? 3 : 10;
  const cpu0 = cpuSeconds(server.pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = (cpuSeconds(server.pid) - cpu0) / seconds;
  const rss = rssMiB(server.pid);
  const peak = peakRssMiB(server.pid);
  say(
    `- ${opened} concurrent event streams on one instance (SQLite; ${streams / perAccount} accounts × ${perAccount}, each on its own queued run): server RSS ${rss.toFixed(0)} MiB (${rssBefore.toFixed(0)} MiB before the streams, peak ${peak.toFixed(0)} MiB; target < 200 MiB: ${verdict(peak < 200)}); CPU while they are open ${(cpu * 100).toFixed(0)}% of one core (every watched run re-read each 250 ms, queue positions included)`,
  );
  for (const c of controllers) c.abort();
  await server.stop();
  fake.resume();
  await fake.close();
}

export async function benchIntegrations(options: { quick: boolean; say: (line: string) => void }): Promise<void> {
  await benchWebhooks(options.quick, options.say);
  await benchStreams(options.quick, options.say);
  options.say('');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchIntegrations({ quick: process.argv.includes('--quick'), say: (l) => process.stdout.write(`${l}\n`) });
}
