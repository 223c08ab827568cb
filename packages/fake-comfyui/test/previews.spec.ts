/**
 * The fake's preview frames against the recorded v0.3.64 exchanges: a plain preview (type 1) is
 * placed and laid out as the recording's, and a client that asked for metadata gets type 4
 * instead, its metadata naming what the recorded `progress_state` names for the node.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { shape, type WsMessage } from './recordings.js';
import { waitFor } from '@runload/core/testing';

interface RecordedFrame {
  readonly conn: string;
  readonly dir: string;
  readonly scenario: string;
  readonly frame?: 'text' | 'binary';
  readonly msg?: WsMessage;
  readonly binary?: { event_type: number; length: number; image_type: number; image_magic_hex: string };
}

const RECORDED: RecordedFrame[] = readFileSync(fileURLToPath(new URL('../fixtures/comfyui-v0.3.64/ws.jsonl', import.meta.url)), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as RecordedFrame);

/** A frame as a test sees it: a text message's type, or `binary:<event type>`. */
type Seen = { kind: 'text'; type: string; data: Record<string, unknown> } | { kind: 'binary'; bytes: Buffer };
const label = (f: Seen) => (f.kind === 'text' ? f.type : `binary:${f.bytes.readUInt32BE(0)}`);

/** The recorded frames of the preview scenario on the main connection (which asked for no metadata). */
const recordedPreviewScenario = RECORDED.filter((r) => r.scenario === 'ws_binary' && r.conn === 'main' && r.dir === 'server->client');
const recordedLabels = recordedPreviewScenario.map((r) => (r.frame === 'binary' ? `binary:${r.binary?.event_type}` : (r.msg?.type ?? '?')));

const SAMPLER = {
  '3': { class_type: 'KSampler', inputs: { seed: 5, steps: 3, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['6', 0], latent_image: ['5', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5-pruned-emaonly.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'x', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'p' } },
};

async function client(fake: FakeComfyUI, clientId: string, askMetadata: boolean) {
  const ws = new WebSocket(`${fake.url.replace(/^http/, 'ws')}/ws?clientId=${clientId}`);
  const seen: Seen[] = [];
  ws.on('message', (raw, binary) => {
    const bytes = raw as Buffer;
    if (binary) seen.push({ kind: 'binary', bytes });
    else {
      const m = JSON.parse(String(bytes)) as WsMessage;
      seen.push({ kind: 'text', type: m.type, data: m.data });
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  if (askMetadata) {
    ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    await waitFor(() => seen.some((f) => f.kind === 'text' && f.type === 'feature_flags'), 'the feature flags answer');
  }
  return { ws, seen };
}

async function runSampler(fake: FakeComfyUI, clientId: string, seen: Seen[]): Promise<Seen[]> {
  const res = await fetch(`${fake.url}/prompt`, { method: 'POST', body: JSON.stringify({ prompt: SAMPLER, client_id: clientId }) });
  if (res.status !== 200) throw new Error(`the prompt was refused: ${await res.text()}`);
  const { prompt_id } = (await res.json()) as { prompt_id: string };
  await waitFor(() => seen.some((f) => f.kind === 'text' && f.type === 'executing' && f.data['node'] === null && f.data['prompt_id'] === prompt_id), 'the prompt to end');
  return seen;
}

/** The frames around each binary frame: what precedes it and what follows it. */
function neighbours(labels: readonly string[]): string[] {
  return labels.flatMap((l, i) => (l.startsWith('binary') ? [`${labels[i - 1]} > ${l} > ${labels[i + 1]}`] : []));
}

describe('fake ComfyUI preview frames against the v0.3.64 recordings', function () {
  this.timeout(20_000);
  let fake: FakeComfyUI;
  beforeEach(async () => (fake = await startFakeComfyUI({ executionMs: 60, progressSteps: 3 })));
  afterEach(() => fake.close());

  it('sends a client that asked for nothing a plain preview (type 1) where the recording has it, laid out as recorded', async () => {
    const recorded = recordedPreviewScenario.find((r) => r.frame === 'binary')?.binary;
    expect(recorded?.event_type).to.equal(1);
    const { ws, seen } = await client(fake, 'plain-client', false);
    await runSampler(fake, 'plain-client', seen);
    ws.close();
    const binaries = seen.flatMap((f) => (f.kind === 'binary' ? [f.bytes] : []));
    expect(binaries).to.have.length(3);
    for (const frame of binaries) {
      expect(frame.readUInt32BE(0)).to.equal(recorded?.event_type);
      // The recorded frame's format (2, PNG) names its magic; the fake's latent previews are JPEG (1).
      const magic = { 1: 'ffd8ff', 2: '89504e470d0a1a0a' }[frame.readUInt32BE(4)] ?? 'unknown format';
      expect(frame.subarray(8, 8 + magic.length / 2).toString('hex')).to.equal(magic);
      expect(recorded?.image_magic_hex.startsWith({ 1: 'ffd8ff', 2: '89504e47' }[recorded.image_type] ?? '?')).to.equal(true);
    }
    expect([...new Set(neighbours(seen.map(label)))]).to.deep.equal([...new Set(neighbours(recordedLabels))]);
  });

  it('sends a client that asked for metadata type 4 instead, beside the step it shows, naming what progress_state names', async () => {
    const { ws, seen } = await client(fake, 'metadata-client', true);
    await runSampler(fake, 'metadata-client', seen);
    ws.close();
    const labels = seen.map(label);
    expect(labels.filter((l) => l.startsWith('binary'))).to.deep.equal(['binary:4', 'binary:4', 'binary:4']);
    // ComfyUI sends it from the step's progress update, between its progress_state and its progress.
    expect([...new Set(neighbours(labels))]).to.deep.equal(['progress_state > binary:4 > progress']);
    const recordedNode = recordedPreviewScenario.find((r) => r.msg?.type === 'progress_state')?.msg?.data['nodes'] as Record<string, Record<string, unknown>>;
    const nodeKeys = Object.keys(shape(Object.values(recordedNode)[0]) as object).filter((k) => !['value', 'max', 'state'].includes(k));
    for (const f of seen) {
      if (f.kind !== 'binary') continue;
      const length = f.bytes.readUInt32BE(4);
      const metadata = JSON.parse(f.bytes.subarray(8, 8 + length).toString()) as Record<string, unknown>;
      expect(Object.keys(metadata).sort()).to.deep.equal([...nodeKeys, 'image_type'].sort());
      expect(metadata).to.deep.include({ node_id: '3', display_node_id: '3', real_node_id: '3', parent_node_id: null, image_type: 'image/jpeg' });
      expect(f.bytes.subarray(8 + length, 11 + length).toString('hex')).to.equal('ffd8ff');
    }
  });

  it('sends no preview with --preview-method none, nor to a legacy client that asked (servers before 2025-07 know no metadata)', async () => {
    await fake.close();
    fake = await startFakeComfyUI({ executionMs: 60, progressSteps: 3, previewMethod: 'none' });
    const quiet = await client(fake, 'quiet', true);
    await runSampler(fake, 'quiet', quiet.seen);
    quiet.ws.close();
    expect(quiet.seen.filter((f) => f.kind === 'binary')).to.have.length(0);
    await fake.close();
    fake = await startFakeComfyUI({ executionMs: 60, progressSteps: 3, version: 'legacy' });
    const { ws, seen } = await client(fake, 'legacy', false);
    ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    await runSampler(fake, 'legacy', seen);
    ws.close();
    expect(seen.map(label).filter((l) => l.startsWith('binary'))).to.deep.equal(['binary:1', 'binary:1', 'binary:1']);
  });
});
