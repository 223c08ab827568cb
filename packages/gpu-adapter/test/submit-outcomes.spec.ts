/**
 * What `submit` makes of every answer a ComfyUI server can give to an upload or a prompt,
 * against a scripted server: a connection lost after the prompt was queued is not a failure
 * (the run must not be sent again), refusals are VALIDATION_ERROR naming the node, and an older
 * server's own prompt id is found again by a freshly started client.
 */
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreError, type ExecutionJob } from '@runload/core';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const RUN = '0000000e-0000-4000-8000-000000000001';
const job = (media = false): ExecutionJob => ({
  runId: RUN,
  workflow: { '1': { class_type: 'SaveImage', inputs: { images: ['2', 0] } } },
  inputs: {},
  media: media ? { '2:image': { assetId: 'aaaaaaaa-0000-4000-8000-00000000000e', filename: 'big.mp4', contentType: 'video/mp4', open: async () => (async function* () { yield new Uint8Array([1, 2, 3]); })() } } : {},
});

describe('ComfyUiExecutor.submit against a scripted server', () => {
  let server: Server;
  let url: string;
  let onPrompt: Handler = () => undefined;
  let onUpload: Handler = () => undefined;
  let queued: unknown[] = [];
  let history: Record<string, unknown> = {};
  let promptPosts = 0;
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('latin1');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const json = (value: unknown) => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(value));
        };
        if (req.url === '/system_stats') return json({ system: { comfyui_version: '0.3.64' }, devices: [] });
        if (req.url === '/queue') return json({ queue_running: [], queue_pending: queued });
        if (req.url?.startsWith('/history/')) {
          const id = decodeURIComponent(req.url.slice('/history/'.length));
          return json(history[id] ? { [id]: history[id] } : {});
        }
        if (req.url?.startsWith('/history?')) return json(history);
        if (req.url === '/prompt' && req.method === 'POST') {
          promptPosts += 1;
          return onPrompt(req, res, body);
        }
        if (req.url === '/upload/image') return onUpload(req, res, body);
        res.statusCode = 404;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    queued = [];
    history = {};
    promptPosts = 0;
  });
  after(() => server.close());

  const submit = async (j = job()) => {
    const executor = new ComfyUiExecutor({ urls: [url], requestTimeoutMs: 2000 });
    try {
      return await executor.submit(url, j);
    } finally {
      await executor.close();
    }
  };

  it('reports accepted when the connection drops after the server queued the prompt', async () => {
    onPrompt = (_req, res, body) => {
      const sent = JSON.parse(body) as { prompt_id: string; extra_data: unknown; prompt: unknown };
      queued = [[0, sent.prompt_id, sent.prompt, sent.extra_data, ['1']]];
      res.socket?.destroy();
    };
    expect(await submit()).to.deep.equal({ accepted: true });
  });

  it('throws SERVICE_UNAVAILABLE when the connection drops and the server has no such prompt', async () => {
    onPrompt = (_req, res) => res.socket?.destroy();
    const error = await submit().catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'SERVICE_UNAVAILABLE')).to.equal(true);
  });

  it('reports a 500 on the prompt as a refusal, not as an unreachable backend (it would be retried forever)', async () => {
    onPrompt = (_req, res) => {
      res.statusCode = 500;
      res.setHeader('content-type', 'text/plain');
      res.end('500 Internal Server Error\n\nServer got itself in trouble');
    };
    const result = await submit();
    expect(result.accepted).to.equal(false);
    if (!result.accepted) expect(result.error.code).to.equal('VALIDATION_ERROR');
  });

  it('names the node of an unknown class, in the v0.3.64 and the 2026 forms', async () => {
    onPrompt = (_req, res) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: { type: 'invalid_prompt', message: 'Cannot execute because node Foo does not exist.', details: "Node ID '#7'", extra_info: {} }, node_errors: {} }));
    };
    expect(await submit()).to.deep.include({ accepted: false });
    expect(((await submit()) as { error: unknown }).error).to.deep.include({ code: 'VALIDATION_ERROR', nodeId: '7', nodeType: null });
    onPrompt = (_req, res) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: { type: 'missing_node_type', message: "Node 'Foo' not found.", details: "Node ID '#7'", extra_info: { node_id: '7', class_type: 'Foo', node_title: 'Foo' } }, node_errors: {} }));
    };
    expect(((await submit()) as { error: unknown }).error).to.deep.include({ code: 'VALIDATION_ERROR', message: "Node 'Foo' not found.", nodeId: '7', nodeType: 'Foo' });
  });

  it('refuses a run whose upload the server refuses (413), sending no prompt', async () => {
    onUpload = (_req, res) => {
      res.statusCode = 413;
      res.end();
    };
    const result = await submit(job(true));
    expect(result.accepted).to.equal(false);
    if (!result.accepted) expect(result.error.code).to.equal('VALIDATION_ERROR');
    expect(promptPosts).to.equal(0);
  });

  it('finds a run an older server queued under its own id, from a client that never saw that id', async () => {
    queued = [[3, 'server-chosen-id', {}, { client_id: 'old', runload_run_id: RUN }, ['1']]];
    const fresh = new ComfyUiExecutor({ urls: [url] });
    expect(await fresh.inspect(url, RUN)).to.deep.equal({ state: 'queued', position: 0 });
    queued = [];
    history = { 'server-chosen-id': { prompt: [3, 'server-chosen-id', {}, { runload_run_id: RUN }, ['1']], outputs: {}, status: { status_str: 'success', completed: true, messages: [] } } };
    const restarted = new ComfyUiExecutor({ urls: [url] });
    expect(await restarted.inspect(url, RUN)).to.deep.equal({ state: 'succeeded', outputs: [], timing: null });
    await fresh.close();
    await restarted.close();
  });
});
