/**
 * Benchmark 7: what live previews cost the server. One run whose sampler sends 50 JPEG previews
 * a second (32 KiB each, about what a 512-pixel latent preview weighs), followed by one event
 * stream; the server's CPU over a window inside the sampler's time, against the same run with
 * previews off (`--preview-method none`). Runnable alone: `pnpm bench --only=previews`.
 * @module
 */
import path from 'node:path';
import { RunloadClient } from '@runload/client';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { cli, cpuSeconds, ROOT } from './harness.js';
import { prepareRunload, startOn, type RunloadServer } from './http-paths.js';

const PREVIEWS_PER_SECOND = 50;
const PREVIEW_BYTES = 32 * 1024;

interface Round {
  /** The server's CPU time per second of the window: 1 is one core busy. */
  readonly cores: number;
  /** Preview events the stream told in the window. */
  readonly told: number;
  readonly windowSeconds: number;
}

/** Follows a run's event stream with the typed client; calls `onEvent` with each event's name and data. */
async function follow(server: RunloadServer, runId: string, onEvent: (event: string, data: Record<string, unknown>) => void): Promise<void> {
  const client = new RunloadClient({ baseUrl: server.url, apiKey: server.key });
  await client.waitForRun(runId, { onUpdate: (run) => onEvent('run', run as unknown as Record<string, unknown>), onPreview: (p) => onEvent('preview', p as unknown as Record<string, unknown>) });
}

/**
 * One run, its stream open: the CPU window opens when the stream first shows the sampler (node 3)
 * running and closes `windowSeconds` later, before the sampler ends.
 */
async function round(server: RunloadServer, app: string, seed: number, windowSeconds: number): Promise<Round> {
  const res = await fetch(`${server.url}/api/v1/apps/${app}`, { method: 'POST', headers: { ...server.auth, 'content-type': 'application/json' }, body: JSON.stringify({ inputs: { '3:seed': seed } }) });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  const { run_id: runId } = (await res.json()) as { run_id: string };
  let window: { cpu: number; at: number; told: number } | null = null;
  let told = 0;
  let result: Round | null = null;
  const close = () => {
    if (!window || result) return;
    const seconds = (performance.now() - window.at) / 1000;
    result = { cores: (cpuSeconds(server.pid) - window.cpu) / seconds, told: told - window.told, windowSeconds: seconds };
  };
  await follow(server, runId, (event, data) => {
    if (event === 'preview') told += 1;
    const progress = data['progress'] as { node_id?: string } | null | undefined;
    if (!window && event === 'run' && progress?.node_id === '3') {
      window = { cpu: cpuSeconds(server.pid), at: performance.now(), told };
      setTimeout(close, windowSeconds * 1000);
    }
  });
  if (!result) throw new Error('the run ended before its measuring window did');
  return result;
}

async function withFake<T>(samplerSeconds: number, use: (fake: FakeComfyUI) => Promise<T>): Promise<T> {
  // Once the loader, the latent and the prompt are cached, three nodes share the execution time.
  const fake = await startFakeComfyUI({ executionMs: samplerSeconds * 3000, progressSteps: samplerSeconds * PREVIEWS_PER_SECOND, previewBytes: PREVIEW_BYTES });
  try {
    return await use(fake);
  } finally {
    await fake.close();
  }
}

export async function benchPreviews(options: { quick: boolean; say: (line: string) => void }): Promise<void> {
  const { say, quick } = options;
  const windowSeconds = quick ? 1 : 6;
  const samplerSeconds = windowSeconds + 2;
  await withFake(samplerSeconds, async (fake) => {
    const data = await prepareRunload('previews', {}, fake.url);
    const app = String((await cli(['apps', 'publish', '--name', 'picture', '--workflow', path.join(ROOT, 'examples/workflows/text-to-image.api.json')], data.env))['app_version_id']);
    const server = await startOn(data);
    try {
      // A first run warms the server and fills the backend's cache, so the measured runs execute the same three nodes.
      fake.setPreviews({ method: 'none' });
      await round(server, app, 1, 0.1);
      fake.setPreviews({ method: 'auto' });
      const on = await round(server, app, 2, windowSeconds);
      fake.setPreviews({ method: 'none' });
      const off = await round(server, app, 3, windowSeconds);
      const perPreviewMs = ((on.cores - off.cores) * 1000) / PREVIEWS_PER_SECOND;
      say(`## 7. Live previews: server CPU while one run streams ${PREVIEWS_PER_SECOND} previews a second`);
      say(
        `- one run whose sampler sends ${PREVIEWS_PER_SECOND} previews/s of ${PREVIEW_BYTES / 1024} KiB (JPEG, type 4 frames), one event stream open on it, SQLite, previews kept in memory; CPU over ${on.windowSeconds.toFixed(1)} s inside the sampler's time: ` +
          `the server used ${(on.cores * 100).toFixed(1)}% of one core (its threads included), against ${(off.cores * 100).toFixed(1)}% for the same run without previews (${off.windowSeconds.toFixed(1)} s)`,
      );
      say(
        `- what a preview costs: ${perPreviewMs.toFixed(2)} ms of server CPU each (read from the socket, checked, stored), and the stream told ${on.told} preview events in that window (at most one per 500 ms: ${Math.floor(on.windowSeconds * 2) + 1} at most)`,
      );
    } finally {
      await server.stop();
    }
  });
}
