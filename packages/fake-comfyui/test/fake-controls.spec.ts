/** The fake's controls (pause, crash/restart), upload naming, outputs of its node library, and options. */
import { expect } from 'chai';
import { makePng, pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { GRAPH, post, uploadProbe } from './helpers.js';
import { waitFor } from '@runload/core/testing';
import { connect } from './ws-client.js';

describe('fake ComfyUI controls and node library', function () {
  this.timeout(15_000);
  let fake: FakeComfyUI;
  afterEach(async () => fake.close());

  it('holds prompts while paused and runs each exactly once after resume', async () => {
    fake = await startFakeComfyUI({ executionMs: 10 });
    await uploadProbe(fake);
    fake.pause();
    await post(fake, '/prompt', { prompt: GRAPH, prompt_id: 'held' });
    // Not synchronisation: five times the 10 ms execution, in which a fake that ignored the pause would run it.
    await new Promise((r) => setTimeout(r, 50));
    const queue = (await (await fetch(`${fake.url}/queue`)).json()) as { queue_pending: unknown[][] };
    expect(queue.queue_pending.map((q) => q[1])).to.deep.equal(['held']);
    expect(fake.executedCount('held')).to.equal(0);
    fake.resume();
    await waitFor(() => fake.executedCount('held') > 0, 'the held prompt to run after resume');
    expect(fake.executedCount('held')).to.equal(1);
    expect(fake.prompts.map((p) => p.prompt_id)).to.deep.equal(['held']);
    expect(fake.prompts[0]?.prompt).to.deep.equal(GRAPH);
  });

  it('restarts with the counter at 0 and closes open sockets on a crash', async () => {
    fake = await startFakeComfyUI({ executionMs: 10 });
    const ws = await connect(fake.url, 'c');
    await uploadProbe(fake);
    fake.pause();
    expect((await post(fake, '/prompt', { prompt: GRAPH })).json?.['number']).to.equal(0);
    const closed = new Promise<void>((resolve) => ws.onClose(resolve));
    await fake.crash();
    await closed;
    await fake.restart();
    expect((await post(fake, '/prompt', { prompt: GRAPH })).json?.['number']).to.equal(0);
  });

  it('names uploads as ComfyUI: same bytes keep the name, other bytes get (n), overwrite replaces, subfolders are kept', async () => {
    fake = await startFakeComfyUI();
    const a = makePng(2, 2, () => [1, 1, 1, 255]);
    const b = makePng(2, 2, () => [2, 2, 2, 255]);
    expect((await uploadProbe(fake, a, 'x.png')).name).to.equal('x.png');
    expect((await uploadProbe(fake, b, 'x.png')).name).to.equal('x (1).png');
    expect((await uploadProbe(fake, b, 'x.png')).name).to.equal('x (1).png');
    expect((await uploadProbe(fake, makePng(3, 3, () => [3, 3, 3, 255]), 'x.png')).name).to.equal('x (2).png');
    const form = new FormData();
    form.append('image', new Blob([b]), 'x.png');
    form.append('overwrite', 'true');
    form.append('subfolder', 'pasted');
    expect(await (await fetch(`${fake.url}/upload/image`, { method: 'POST', body: form })).json()).to.deep.equal({ name: 'x.png', subfolder: 'pasted', type: 'input' });
    const viewed = Buffer.from(await (await fetch(`${fake.url}/view?filename=x.png&subfolder=pasted&type=input`)).arrayBuffer());
    expect(viewed.equals(b)).to.equal(true);
    expect((await fetch(`${fake.url}/view?filename=../x.png&type=input`)).status).to.equal(400);
    expect((await fetch(`${fake.url}/view?filename=x.png&subfolder=../..&type=input`)).status).to.equal(403);
    expect((await fetch(`${fake.url}/view?filename=missing.png`)).status).to.equal(404);
    const range = await fetch(`${fake.url}/view?filename=x.png&type=input`, { headers: { range: 'bytes=0-7' } });
    expect(range.status).to.equal(206);
    expect(Buffer.from(await range.arrayBuffer()).toString('hex')).to.equal('89504e470d0a1a0a');
  });

  it('runs a text-to-image graph: the sampler reports progressSteps ticks and SaveImage writes a valid PNG of the latent size', async () => {
    fake = await startFakeComfyUI({ executionMs: 40, progressSteps: 3 });
    const ws = await connect(fake.url, 't2i');
    const prompt = {
      '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5-pruned-emaonly.safetensors' } },
      '5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 32, batch_size: 1 } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['4', 1] } },
      '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['6', 0], latent_image: ['5', 0] } },
      '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
      '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'runload/t2i' } },
    };
    await post(fake, '/prompt', { prompt, client_id: 't2i', prompt_id: 't2i' });
    await ws.until((m) => m.type === 'executing' && m.data['node'] === null);
    const progress = ws.messages.filter((m) => m.type === 'progress');
    expect(progress.map((m) => [m.data['value'], m.data['max'], m.data['node']])).to.deep.equal([[1, 3, '3'], [2, 3, '3'], [3, 3, '3']]);
    const executed = ws.messages.find((m) => m.type === 'executed')?.data['output'];
    expect(executed).to.deep.equal({ images: [{ filename: 't2i_00001_.png', subfolder: 'runload', type: 'output' }] });
    const png = Buffer.from(await (await fetch(`${fake.url}/view?filename=t2i_00001_.png&subfolder=runload&type=output`)).arrayBuffer());
    expect(png.subarray(0, 8).toString('hex')).to.equal('89504e470d0a1a0a');
    expect(png.subarray(12, 16).toString('latin1')).to.equal('IHDR');
    expect(pngSize(png)).to.deep.equal({ width: 64, height: 32 });
    const bad = await post(fake, '/prompt', { prompt: { ...prompt, '3': { ...prompt['3'], inputs: { ...prompt['3'].inputs, sampler_name: 'nope' } } } });
    expect((bad.json?.['node_errors'] as Record<string, { errors: { type: string; details: string }[] }>)['3']?.errors[0]).to.include({
      type: 'value_not_in_list',
      details: "sampler_name: 'nope' not in (list of length 42)",
    });
    ws.close();
  });

  it('saves video under images with animated [true] and audio under audio, each from an uploaded file', async () => {
    fake = await startFakeComfyUI({ executionMs: 10 });
    for (const name of ['clip.mp4', 'voice.flac']) {
      const form = new FormData();
      form.append('image', new Blob([Buffer.from(name)]), name);
      await fetch(`${fake.url}/upload/image`, { method: 'POST', body: form });
    }
    const prompt = {
      '1': { class_type: 'LoadVideo', inputs: { file: 'clip.mp4' } },
      '2': { class_type: 'GetVideoComponents', inputs: { video: ['1', 0] } },
      '3': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
      '4': { class_type: 'LoadAudio', inputs: { audio: 'voice.flac' } },
      '5': { class_type: 'CreateVideo', inputs: { images: ['3', 0], fps: 24, audio: ['4', 0] } },
      '6': { class_type: 'SaveVideo', inputs: { video: ['5', 0], filename_prefix: 'video/ComfyUI', format: 'auto', codec: 'auto' } },
      '7': { class_type: 'SaveAudio', inputs: { audio: ['4', 0], filename_prefix: 'audio/ComfyUI' } },
    };
    await post(fake, '/prompt', { prompt, prompt_id: 'av' });
    const entry = await waitFor(
      async () => ((await (await fetch(`${fake.url}/history/av`)).json()) as Record<string, { outputs: Record<string, unknown> }>)['av'],
      'the history entry of the audio/video prompt',
    );
    expect(entry.outputs).to.deep.equal({
      '6': { images: [{ filename: 'ComfyUI_00001_.mp4', subfolder: 'video', type: 'output' }], animated: [true] },
      '7': { audio: [{ filename: 'ComfyUI_00001_.flac', subfolder: 'audio', type: 'output' }] },
    });
    const flac = await fetch(`${fake.url}/view?filename=ComfyUI_00001_.flac&subfolder=audio`);
    expect(flac.headers.get('content-type')).to.equal('audio/flac');
    expect(Buffer.from(await flac.arrayBuffer()).subarray(0, 4).toString('latin1')).to.equal('fLaC');
    const missing = await post(fake, '/prompt', { prompt: { ...prompt, '4': { class_type: 'LoadAudio', inputs: { audio: 'gone.flac' } } } });
    expect((missing.json?.['node_errors'] as Record<string, { errors: { details: string }[] }>)['4']?.errors[0]?.details).to.equal('audio - Invalid audio file: gone.flac');
  });

  it('serves and accepts extra object_info classes given as an option, and lists uploads in the loader combos', async () => {
    const extra = { MyNode: { input: { required: { images: ['IMAGE'] } }, output: [], output_node: true, name: 'MyNode' } };
    fake = await startFakeComfyUI({ objectInfo: extra, executionMs: 10 });
    expect(await (await fetch(`${fake.url}/object_info/MyNode`)).json()).to.deep.equal(extra);
    await uploadProbe(fake);
    const res = await post(fake, '/prompt', { prompt: { '1': GRAPH['1'], '2': { class_type: 'MyNode', inputs: { images: ['1', 0] } } } });
    expect(res.status).to.equal(200);
    const info = (await (await fetch(`${fake.url}/object_info`)).json()) as Record<string, { input: { required: Record<string, unknown[]> } }>;
    expect(info['LoadImage']?.input.required['image']?.[0]).to.deep.equal(['example.png', 'probe_in.png']);
    const raw = await (await fetch(`${fake.url}/object_info/KSampler`)).text();
    expect(raw).to.contain('"max":18446744073709551615');
  });
});
