/** Each scenario recorded from a real ComfyUI v0.3.64, replayed against the fake and compared with the recording. */
import { expect } from 'chai';
import { decodePng, makePng, pngSize, startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';
import { CLIENT_ID, HTTP, WS, one, recorded, recordedPromptId, sequenceOf, shape, shapesByType, type WsMessage } from './recordings.js';
import { waitFor } from '@runload/core/testing';
import { connect, type Recorder } from './ws-client.js';

const PROBE = makePng(5, 3, (x, y) => [x * 50, y * 100, 30, 255]);

async function uploadProbe(fake: FakeComfyUI, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('image', new Blob([PROBE]), 'probe_in.png');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${fake.url}/upload/image`, { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function call(fake: FakeComfyUI, method: string, path: string, body?: unknown) {
  const init: RequestInit = { method };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(`${fake.url}${path}`, init);
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, type, text, json: type.startsWith('application/json') ? (JSON.parse(text) as unknown) : undefined };
}

/** Posts a recorded POST /prompt request as recorded. */
async function replay(fake: FakeComfyUI, scenario: string, index = 0) {
  const record = recorded(scenario, 'POST', '/prompt')[index];
  if (!record) throw new Error(`no POST /prompt in ${scenario}`);
  const raw = record.request?.['raw'];
  return call(fake, 'POST', '/prompt', typeof raw === 'string' ? raw : record.request);
}

const isDone = (id: string) => (m: WsMessage) => m.type === 'executing' && m.data['node'] === null && m.data['prompt_id'] === id;

function withoutTracebacks(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === 'traceback' ? undefined : v))) as unknown;
}

describe('fake ComfyUI against the v0.3.64 recordings', function () {
  this.timeout(20_000);
  let fake: FakeComfyUI;
  let ws: Recorder;
  beforeEach(async () => {
    fake = await startFakeComfyUI({ executionMs: 40 });
    ws = await connect(fake.url, CLIENT_ID);
    await uploadProbe(fake, { overwrite: 'true' });
  });
  afterEach(async () => {
    ws.close();
    await fake.close();
  });

  async function runBasic(): Promise<string> {
    const id = recordedPromptId('basic');
    await replay(fake, 'basic');
    await ws.until(isDone(id));
    return id;
  }

  it('info: the same system_stats shape and the same features, queue and object_info answers', async () => {
    for (const record of recorded('info')) {
      const res = await call(fake, record.method, record.path);
      expect(res.status, record.path).to.equal(record.status);
      expect(res.type, record.path).to.equal(record.content_type);
      if (record.path === '/system_stats') expect(shape(res.json)).to.deep.equal(shape(record.body));
      else expect(res.json, record.path).to.deep.equal(record.body);
    }
  });

  it('upload: the same bytes under the same name keep the name, and /view serves them with the recorded headers', async () => {
    for (const record of recorded('upload', 'POST')) {
      const { image: _file, ...fields } = (record.request?.['multipart'] ?? {}) as Record<string, string>;
      const res = await uploadProbe(fake, fields);
      expect(res).to.deep.equal({ status: record.status, body: record.body });
    }
    const view = one('upload', 'GET', '/view');
    const res = await fetch(`${fake.url}${view.path}`);
    expect(res.status).to.equal(view.status);
    expect(res.headers.get('content-type')).to.equal(view.content_type);
    expect(res.headers.get('content-disposition')).to.equal('filename="probe_in.png"');
    expect(Buffer.from(await res.arrayBuffer()).equals(PROBE)).to.equal(true);
  });

  it('basic: the recorded response, message sequence, history entry and an inverted PNG of the input size', async () => {
    const id = recordedPromptId('basic');
    const res = await replay(fake, 'basic');
    expect(res.json).to.deep.equal({ prompt_id: id, number: 0, node_errors: {} });
    await ws.until(isDone(id));
    expect(sequenceOf(ws.messages, id)).to.deep.equal(sequenceOf(WS, id));
    const statusesBefore = ws.messages.slice(1, ws.messages.findIndex((m) => m.data['prompt_id'] === id)).map((m) => m.type);
    expect(statusesBefore).to.deep.equal(['status', 'status']);
    expect(shapesByType(ws.messages.filter((m) => m.data['prompt_id'] === id))).to.deep.equal(shapesByType(WS.filter((m) => m.data['prompt_id'] === id)));
    const history = (await call(fake, 'GET', `/history/${id}`)).json as Record<string, { outputs: Record<string, { images: { filename: string }[] }> }>;
    const recordedHistory = one('basic', 'GET', '/history/').body as Record<string, unknown>;
    expect(shape(history)).to.deep.equal(shape(recordedHistory));
    const entry = history[id];
    expect(entry?.outputs['3']?.images[0]?.filename).to.equal('probe_00001_.png');
    const png = Buffer.from(await (await fetch(`${fake.url}/view?filename=probe_00001_.png&subfolder=&type=output`)).arrayBuffer());
    expect(png.subarray(0, 16).toString('hex')).to.equal('89504e470d0a1a0a0000000d49484452'); // as recorded: signature, then IHDR first
    expect(pngSize(png)).to.deep.equal({ width: 5, height: 3 });
    const input = decodePng(PROBE);
    const output = decodePng(png);
    expect([...(output?.rgba.subarray(0, 8) ?? [])]).to.deep.equal([...(input?.rgba.subarray(0, 8) ?? [])].map((v, i) => (i % 4 === 3 ? v : 255 - v)));
    expect((await call(fake, 'GET', '/queue')).json).to.deep.equal(one('basic', 'GET', '/queue').body);
    expect(shape((await call(fake, 'GET', '/history?max_items=1')).json)).to.deep.equal(shape(one('basic', 'GET', '/history?').body));
  });

  it('cached_rerun: every node cached, the output listed again, no new file', async () => {
    await runBasic();
    const id = recordedPromptId('cached_rerun');
    const res = await replay(fake, 'cached_rerun');
    expect(res.json).to.deep.equal({ prompt_id: id, number: 1, node_errors: {} });
    await ws.until(isDone(id));
    expect(sequenceOf(ws.messages, id)).to.deep.equal(sequenceOf(WS, id));
    expect(ws.messages.find((m) => m.type === 'execution_cached' && m.data['prompt_id'] === id)?.data['nodes']).to.deep.equal(['1', '2', '3']);
    const history = (await call(fake, 'GET', `/history/${id}`)).json as Record<string, { outputs: unknown; status: { messages: [string][] } }>;
    const recordedEntry = (one('cached_rerun', 'GET', '/history/').body as Record<string, { status: { messages: [string][] } }>)[id];
    expect(history[id]?.outputs).to.deep.equal({ '3': { images: [{ filename: 'probe_00001_.png', subfolder: '', type: 'output' }] } });
    expect(history[id]?.status.messages.map((m) => m[0])).to.deep.equal(recordedEntry?.status.messages.map((m) => m[0]));
    expect((await fetch(`${fake.url}/view?filename=probe_00002_.png`)).status).to.equal(404);
  });

  it('no_client_id: only status and progress_state reach the sockets, and history keeps empty extra_data', async () => {
    await runBasic();
    const from = ws.messages.length;
    const res = await replay(fake, 'no_client_id');
    const id = (res.json as { prompt_id: string }).prompt_id;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    await waitFor(async () => (await call(fake, 'GET', `/history/${id}`)).text !== '{}', 'the history entry of the no_client_id prompt');
    const recordedId = recordedPromptId('no_client_id');
    const start = WS.findIndex((m) => m.data['prompt_id'] === recordedId) - 2;
    const recordedTypes = WS.slice(start, start + 5).map((m) => m.type);
    // The socket's messages may trail the history entry: wait until as many arrived as were recorded.
    await waitFor(() => ws.messages.length - from >= recordedTypes.length, `${recordedTypes.length} socket messages (${recordedTypes.join(',')})`);
    expect(ws.messages.slice(from).map((m) => m.type)).to.deep.equal(recordedTypes);
    const entry = ((await call(fake, 'GET', `/history/${id}`)).json as Record<string, { prompt: unknown[]; outputs: unknown }>)[id];
    expect(entry?.prompt[3]).to.deep.equal({});
    expect(entry?.outputs).to.deep.equal({ '3': { images: [{ filename: 'probe_noclient_00001_.png', subfolder: '', type: 'output' }] } });
  });

  it('validation: every recorded refusal gets the same status and body', async () => {
    for (const scenario of ['validation_missing_input', 'validation_bad_value', 'validation_no_outputs', 'validation_bad_link', 'malformed_body', 'validation_unknown_class_fixed']) {
      for (const [index, record] of recorded(scenario, 'POST', '/prompt').entries()) {
        const res = await replay(fake, scenario, index);
        expect(res.status, scenario).to.equal(record.status);
        expect(res.type, scenario).to.equal(record.content_type ?? 'application/json; charset=utf-8');
        if (typeof record.body === 'string') expect(res.text).to.equal(record.body);
        else {
          expect(withoutTracebacks(res.json), scenario).to.deep.equal(withoutTracebacks(record.body));
          expect(shape(res.json), scenario).to.deep.equal(shape(record.body));
        }
      }
    }
  });

  it('validation_wrong_type: a 200 that still carries the failed branch in node_errors', async () => {
    const record = one('validation_wrong_type', 'POST', '/prompt');
    const res = await replay(fake, 'validation_wrong_type');
    expect(res.status).to.equal(200);
    const sortErrors = (body: unknown) => {
      const errors = (body as { node_errors: Record<string, { errors: { type: string }[] }> }).node_errors;
      for (const node of Object.values(errors)) node.errors.sort((a, b) => (a.type < b.type ? -1 : 1)); // ComfyUI walks inputs in set order
      return errors;
    };
    expect(sortErrors(res.json)).to.deep.equal(sortErrors(record.body));
  });

  it('numbers every POST that parses, refused ones included, as recorded', async () => {
    fake.pause();
    for (const record of HTTP.filter((r) => r.method === 'POST' && r.path === '/prompt' && r.scenario !== 'validation_unknown_class_fixed')) {
      const res = await call(fake, 'POST', '/prompt', typeof record.request?.['raw'] === 'string' ? record.request['raw'] : record.request);
      // SaveImageWebsocket is not one of the fake's nodes: refused, but numbered all the same.
      if (record.status === 200 && record.scenario !== 'ws_binary') expect((res.json as { number: number }).number, record.scenario).to.equal((record.body as { number: number }).number);
    }
  });

  it('execution_error: a Save node writing outside the output folder fails with the recorded sequence and shape', async () => {
    await runBasic();
    const id = recordedPromptId('execution_error');
    await replay(fake, 'execution_error');
    await ws.until(isDone(id));
    expect(sequenceOf(ws.messages, id)).to.deep.equal(sequenceOf(WS, id));
    const error = ws.messages.find((m) => m.type === 'execution_error')?.data;
    const recordedError = WS.find((m) => m.type === 'execution_error')?.data;
    expect(shape(error)).to.deep.equal(shape(recordedError));
    expect(error).to.include({ node_id: '3', node_type: 'SaveImage', exception_type: 'Exception' });
    expect(String(error?.['exception_message'])).to.match(/^\*\*\*\* ERROR: Saving image outside the output folder is not allowed\.\n[^]*\n$/);
    expect([...(error?.['current_outputs'] as string[])].sort()).to.deep.equal([...(recordedError?.['current_outputs'] as string[])].sort());
    const history = (await call(fake, 'GET', `/history/${id}`)).json as Record<string, unknown>;
    expect(shape(withoutTracebacks(history))).to.deep.equal(shape(withoutTracebacks(one('execution_error', 'GET', '/history/').body)));
  });

  it('interrupt: delete a queued prompt, interrupt the running one by id between nodes, the next one runs', async () => {
    await runBasic();
    const [long, queued, deleted] = [0, 1, 2].map((i) => recordedPromptId('interrupt', i)) as [string, string, string];
    fake.setExecutionMs(2400);
    for (const i of [0, 1, 2]) expect((await replay(fake, 'interrupt', i)).status).to.equal(200);
    await ws.until((m) => m.type === 'executing' && m.data['node'] === '20');
    // The recording had run 12 prompts before: numbers differ, everything else is the same.
    const unnumbered = (queue: unknown) =>
      Object.fromEntries(Object.entries(queue as Record<string, unknown[][]>).map(([k, items]) => [k, items.map((item) => item.slice(1))]));
    expect(unnumbered((await call(fake, 'GET', '/queue')).json)).to.deep.equal(unnumbered(recorded('interrupt', 'GET', '/queue')[0]?.body));
    expect((await call(fake, 'GET', '/prompt')).json).to.deep.equal(one('interrupt', 'GET', '/prompt').body);
    expect(await call(fake, 'POST', '/queue', { delete: [deleted] })).to.include({ status: 200, text: '' });
    expect(unnumbered((await call(fake, 'GET', '/queue')).json)).to.deep.equal(unnumbered(recorded('interrupt', 'GET', '/queue')[1]?.body));
    await ws.until((m) => m.type === 'executing' && m.data['node'] === '21');
    expect(await call(fake, 'POST', '/interrupt', { prompt_id: long })).to.include({ status: 200, text: '' });
    fake.setExecutionMs(40);
    await ws.until(isDone(queued));
    expect(sequenceOf(ws.messages, long, false)).to.deep.equal(sequenceOf(WS, long, false));
    expect(sequenceOf(ws.messages, queued)).to.deep.equal(sequenceOf(WS, queued));
    const interrupted = ws.messages.find((m) => m.type === 'execution_interrupted')?.data as Record<string, unknown>;
    const recordedInterrupted = WS.find((m) => m.type === 'execution_interrupted')?.data as Record<string, unknown>;
    expect(shape(interrupted)).to.deep.equal(shape(recordedInterrupted));
    expect({ ...interrupted, executed: (interrupted['executed'] as string[]).sort(), timestamp: 0 }).to.deep.equal({
      ...recordedInterrupted, executed: (recordedInterrupted['executed'] as string[]).sort(), timestamp: 0,
    });
    for (const record of recorded('interrupt', 'GET', '/history/')) {
      const id = record.path.slice('/history/'.length);
      const body = (await call(fake, 'GET', record.path)).json as Record<string, { status: { status_str: string; completed: boolean; messages: [string][] } }>;
      const expected = record.body as typeof body;
      expect(Object.keys(body), id).to.deep.equal(Object.keys(expected));
      if (id === deleted) continue;
      expect(shape(body)).to.deep.equal(shape(expected));
      expect(body[id]?.status.messages.map((m) => m[0])).to.deep.equal(expected[id]?.status.messages.map((m) => m[0]));
      expect(body[id]?.status.status_str).to.equal(expected[id]?.status.status_str);
    }
    const queuedEntry = ((await call(fake, 'GET', `/history/${queued}`)).json as Record<string, { outputs: unknown }>)[queued];
    expect(queuedEntry?.outputs).to.deep.equal((one('interrupt', 'GET', `/history/${queued}`).body as Record<string, { outputs: unknown }>)[queued]?.outputs);
    expect((await call(fake, 'GET', '/queue')).json).to.deep.equal(recorded('interrupt', 'GET', '/queue')[2]?.body);
  });

  it('interrupt_idle: 200 with an empty body and no effect on the next prompt', async () => {
    for (const record of recorded('interrupt_idle')) {
      const res = await call(fake, 'POST', '/interrupt', record.request);
      expect(res).to.include({ status: record.status, text: '' });
    }
    const id = await runBasic();
    expect(ws.messages.some((m) => m.type === 'execution_success' && m.data['prompt_id'] === id)).to.equal(true);
  });

  it('history_all: every entry, in completion order, in the recorded shape', async () => {
    const first = await runBasic();
    const second = recordedPromptId('cached_rerun');
    await replay(fake, 'cached_rerun');
    await ws.until(isDone(second));
    const all = (await call(fake, 'GET', '/history')).json as Record<string, unknown>;
    expect(Object.keys(all)).to.deep.equal([first, second]);
    const recordedAll = one('history_all').body as Record<string, unknown>;
    expect(shape(all[first])).to.deep.equal(shape(recordedAll[first]));
  });
});
