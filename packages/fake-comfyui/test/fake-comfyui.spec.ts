/** The fake ComfyUI against what a real v0.3.64 was recorded doing. */
import { expect } from 'chai';
import { makePng, pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { GRAPH, post, uploadProbe } from './helpers.js';
import { WS, recordedPromptId, sequenceOf } from './recordings.js';
import { waitFor } from '@runload/core/testing';
import { connect, type Recorder } from './ws-client.js';

const recorded = {
  // The two broadcast statuses before each prompt's own messages: queued by the POST, taken by the worker.
  basic: ['status', 'status', ...sequenceOf(WS, recordedPromptId('basic'))],
  cached_rerun: ['status', 'status', ...sequenceOf(WS, recordedPromptId('cached_rerun'))],
  execution_error: ['status', 'status', ...sequenceOf(WS, recordedPromptId('execution_error'))],
  history_entry_keys: ['prompt', 'outputs', 'status', 'meta'],
  history_status_messages: ['execution_start', 'execution_cached', 'execution_success'],
  execution_error_keys: Object.keys(WS.find((m) => m.type === 'execution_error')?.data ?? {}),
  prompt_response_keys: ['prompt_id', 'number', 'node_errors'],
};

describe('fake ComfyUI (v0.3.64)', function () {
  this.timeout(15_000);
  let fake: FakeComfyUI;
  let ws: Recorder;
  beforeEach(async () => {
    fake = await startFakeComfyUI({ executionMs: 30 });
    ws = await connect(fake.url, 'client-1');
    await uploadProbe(fake);
  });
  afterEach(async () => {
    ws.close();
    await fake.close();
  });

  const done = (id: string) => (m: { type: string; data: Record<string, unknown> }) => m.type === 'executing' && m.data['node'] === null && m.data['prompt_id'] === id;
  const typesFor = (id: string) =>
    ws.messages.filter((m) => m.type === 'status' || m.data['prompt_id'] === id).map((m) => m.type);

  it('sends the recorded message sequence and history entry for a basic prompt', async () => {
    ws.messages.length = 0;
    const res = await post(fake, '/prompt', { prompt: GRAPH, client_id: 'client-1', prompt_id: 'p-basic' });
    expect(res.status).to.equal(200);
    expect(Object.keys(res.json ?? {})).to.deep.equal(recorded['prompt_response_keys']);
    expect(res.json?.['prompt_id']).to.equal('p-basic');
    await ws.until(done('p-basic'));
    expect(typesFor('p-basic')).to.deep.equal(recorded['basic']);
    const history = (await (await fetch(`${fake.url}/history/p-basic`)).json()) as Record<string, Record<string, unknown>>;
    const entry = history['p-basic'] as { status: { messages: [string][] }; outputs: Record<string, { images: { filename: string; subfolder: string; type: string }[] }> };
    expect(Object.keys(entry)).to.deep.equal(recorded['history_entry_keys']);
    expect(entry.status.messages.map((m) => m[0])).to.deep.equal(recorded['history_status_messages']);
    const image = entry.outputs['3']?.images[0];
    expect(image?.filename).to.match(/^probe_\d{5}_\.png$/);
    const view = await fetch(`${fake.url}/view?filename=${image?.filename}&subfolder=&type=output`);
    expect(view.headers.get('content-type')).to.equal('image/png');
    expect(pngSize(Buffer.from(await view.arrayBuffer()))).to.not.equal(null);
    expect(fake.executedCount('p-basic')).to.equal(1);
  });

  it('serves an identical prompt from cache with the recorded sequence', async () => {
    await post(fake, '/prompt', { prompt: GRAPH, client_id: 'client-1', prompt_id: 'first' });
    await ws.until(done('first'));
    ws.messages.length = 0;
    await post(fake, '/prompt', { prompt: GRAPH, client_id: 'client-1', prompt_id: 'again' });
    await ws.until(done('again'));
    expect(typesFor('again')).to.deep.equal(recorded['cached_rerun']);
  });

  it('reports a node failure with the recorded sequence and error shape', async () => {
    ws.messages.length = 0;
    fake.failNextWith({ nodeId: '1', exceptionType: 'RuntimeError', message: 'boom' });
    await post(fake, '/prompt', { prompt: GRAPH, client_id: 'client-1', prompt_id: 'p-err' });
    await ws.until(done('p-err'));
    expect(typesFor('p-err')).to.deep.equal(recorded['execution_error']);
    const error = ws.messages.find((m) => m.type === 'execution_error');
    expect(Object.keys(error?.data ?? {})).to.deep.equal(recorded['execution_error_keys']);
    expect(error?.data).to.include({ node_id: '1', node_type: 'LoadImage', exception_type: 'RuntimeError', exception_message: 'boom\n' });
    expect(error?.data['current_inputs']).to.deep.equal({ image: ['probe_in.png'] });
    const history = (await (await fetch(`${fake.url}/history/p-err`)).json()) as Record<string, { status: { status_str: string } }>;
    expect(history['p-err']?.status.status_str).to.equal('error');
  });

  it('refuses invalid prompts as ComfyUI does', async () => {
    const missingFile = await post(fake, '/prompt', { prompt: { ...GRAPH, '1': { class_type: 'LoadImage', inputs: { image: 'nope.png' } } } });
    expect(missingFile.status).to.equal(400);
    expect((missingFile.json?.['error'] as { type: string }).type).to.equal('prompt_outputs_failed_validation');
    expect(missingFile.json?.['node_errors']).to.have.key('1');
    const unknown = await post(fake, '/prompt', { prompt: { '1': { class_type: 'NoSuchNode', inputs: {} } } });
    expect(unknown.status).to.equal(400);
    expect((unknown.json?.['error'] as { type: string }).type).to.equal('invalid_prompt');
    const noOutputs = await post(fake, '/prompt', { prompt: { '1': { class_type: 'LoadImage', inputs: { image: 'probe_in.png' } } } });
    expect((noOutputs.json?.['error'] as { type: string }).type).to.equal('prompt_no_outputs');
    const noPrompt = await post(fake, '/prompt', {});
    expect((noPrompt.json?.['error'] as { type: string }).type).to.equal('no_prompt');
    const malformed = await post(fake, '/prompt', '{"prompt": ');
    expect(malformed.status).to.equal(500);
    expect(malformed.text).to.equal('500 Internal Server Error\n\nServer got itself in trouble');
    const partial = await post(fake, '/prompt', {
      prompt: { ...GRAPH, '4': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: 99 } }, '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'x' } } },
    });
    expect(partial.status).to.equal(200);
    expect(partial.json?.['node_errors']).to.have.key('4');
  });

  it('removes a queued prompt and interrupts a running one by its id', async () => {
    fake.setExecutionMs(2000);
    await post(fake, '/prompt', { prompt: GRAPH, client_id: 'client-1', prompt_id: 'running' });
    await post(fake, '/prompt', { prompt: { ...GRAPH, '3': { ...GRAPH['3'], inputs: { ...GRAPH['3'].inputs, filename_prefix: 'other' } } }, client_id: 'client-1', prompt_id: 'waiting' });
    const queue = (await (await fetch(`${fake.url}/queue`)).json()) as { queue_running: unknown[][]; queue_pending: unknown[][] };
    expect(queue.queue_running.map((q) => q[1])).to.deep.equal(['running']);
    expect(queue.queue_pending.map((q) => q[1])).to.deep.equal(['waiting']);
    await post(fake, '/queue', { delete: ['waiting'] });
    await post(fake, '/interrupt', { prompt_id: 'someone-else' });
    await post(fake, '/interrupt', { prompt_id: 'running' });
    await ws.until(done('running'));
    expect(ws.messages.some((m) => m.type === 'execution_interrupted' && m.data['prompt_id'] === 'running')).to.equal(true);
    const history = (await (await fetch(`${fake.url}/history/running`)).json()) as Record<string, { status: { status_str: string; messages: [string][] } }>;
    expect(history['running']?.status.status_str).to.equal('error');
    expect(history['running']?.status.messages.at(-1)?.[0]).to.equal('execution_interrupted');
    expect(await (await fetch(`${fake.url}/history/waiting`)).json()).to.deep.equal({});
  });

  it('dedupes identical uploads and renames different bytes', async () => {
    expect(await uploadProbe(fake)).to.deep.equal({ name: 'probe_in.png', subfolder: '', type: 'input' });
    expect((await uploadProbe(fake, makePng(2, 2, () => [9, 9, 9, 255]))).name).to.equal('probe_in (1).png');
  });

  it('forgets everything on a crash and answers again after a restart on the same port', async () => {
    fake.pause();
    await post(fake, '/prompt', { prompt: GRAPH, client_id: 'client-1', prompt_id: 'lost' });
    const port = fake.port;
    await fake.crash();
    let refused = false;
    await fetch(`${fake.url}/queue`).catch(() => (refused = true));
    expect(refused).to.equal(true);
    await fake.restart();
    fake.resume();
    expect(fake.port).to.equal(port);
    expect(await (await fetch(`${fake.url}/queue`)).json()).to.deep.equal({ queue_running: [], queue_pending: [] });
    expect(await (await fetch(`${fake.url}/history/lost`)).json()).to.deep.equal({});
  });

  it('answers unknown ids and classes with 200 {} and serves the /api aliases', async () => {
    expect(await (await fetch(`${fake.url}/api/history/nope`)).json()).to.deep.equal({});
    expect(await (await fetch(`${fake.url}/object_info/NoSuchNode`)).json()).to.deep.equal({});
    const info = (await (await fetch(`${fake.url}/api/object_info/KSampler`)).json()) as { KSampler: { input: { required: Record<string, unknown[]> } } };
    expect(info.KSampler.input.required['seed']?.[0]).to.equal('INT');
  });
});

describe('fake ComfyUI version differences', () => {
  it('legacy ignores a client prompt_id and sends no execution_success; 2026 names missing nodes', async () => {
    const legacy = await startFakeComfyUI({ version: 'legacy', executionMs: 10 });
    const ws = await connect(legacy.url, 'c');
    await uploadProbe(legacy);
    const res = await post(legacy, '/prompt', { prompt: GRAPH, client_id: 'c', prompt_id: 'mine' });
    const id = res.json?.['prompt_id'] as string;
    expect(id).to.not.equal('mine');
    await ws.until((m) => m.type === 'executing' && m.data['node'] === null);
    expect(ws.messages.some((m) => m.type === 'execution_success')).to.equal(false);
    expect((await fetch(`${legacy.url}/features`)).status).to.equal(404);
    ws.close();
    await legacy.close();
    const modern = await startFakeComfyUI({ version: '2026' });
    const unknown = await post(modern, '/prompt', { prompt: { '1': { class_type: 'NoSuchNode', inputs: {}, _meta: { title: 'Mystery' } } } });
    expect(unknown.json?.['error']).to.deep.include({ type: 'missing_node_type', message: "Node 'Mystery' not found. The custom node may not be installed." });
    const stats = (await (await fetch(`${modern.url}/system_stats`)).json()) as { system: { os: string } };
    expect(stats.system.os).to.equal('linux');
    expect((await fetch(`${modern.url}/jobs`)).status).to.equal(404);
    await uploadProbe(modern);
    const done = await post(modern, '/prompt', { prompt: GRAPH, prompt_id: 'job-1' });
    expect(done.status).to.equal(200);
    const job = await waitFor(async () => {
      const answer = (await (await fetch(`${modern.url}/api/jobs/job-1`)).json()) as Record<string, unknown>;
      return answer['status'] === 'completed' && answer;
    }, 'job-1 to be completed in /api/jobs');
    // priority 1: the refused NoSuchNode prompt above took number 0, as ComfyUI numbers every parsed POST.
    expect(job).to.include({ id: 'job-1', status: 'completed', priority: 1, outputs_count: 1 });
    expect(job['outputs']).to.deep.equal({ '3': { images: [{ filename: 'probe_00001_.png', subfolder: '', type: 'output' }] } });
    const list = (await (await fetch(`${modern.url}/api/jobs?status=completed&limit=1`)).json()) as { jobs: { id: string }[]; pagination: unknown };
    expect(list.jobs.map((j) => j.id)).to.deep.equal(['job-1']);
    expect(list.pagination).to.deep.equal({ offset: 0, limit: 1, total: 1, has_more: false });
    expect((await fetch(`${modern.url}/api/jobs/unknown`)).status).to.equal(404);
    await modern.close();
    const current = await startFakeComfyUI();
    expect((await fetch(`${current.url}/api/jobs`)).status).to.equal(404);
    expect((await fetch(`${current.url}/features`)).status).to.equal(200);
    await current.close();
  });
});
