import { expect } from 'chai';
import { RunloadClient, type RunPreviewEvent } from '@runload/client';

const stream = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });

describe('@runload/client previews', () => {
  it("hands waitForRun's onPreview each preview event of the stream, and onUpdate only the records", async () => {
    const preview = { run_id: 'r1', node_id: '3', seq: 2, content_type: 'image/jpeg', url: '/api/v1/runs/r1/preview?seq=2' };
    const body = [
      `id: 1\nevent: run\ndata: ${JSON.stringify({ run_id: 'r1', status: 'running', outputs: [] })}\n\n`,
      `id: 2\nevent: preview\ndata: ${JSON.stringify(preview)}\n\n`,
      `id: 3\nevent: run\ndata: ${JSON.stringify({ run_id: 'r1', status: 'succeeded', outputs: [] })}\n\n`,
    ].join('');
    const client = new RunloadClient({ baseUrl: 'http://x', apiKey: 'rl_k', fetch: (async () => stream(body)) as typeof fetch });
    const updates: string[] = [];
    const previews: RunPreviewEvent[] = [];
    const run = await client.waitForRun('r1', { onUpdate: (r) => updates.push(r.status), onPreview: (p) => previews.push(p) });
    expect(run.status).to.equal('succeeded');
    expect(updates).to.deep.equal(['running', 'succeeded']);
    expect(previews).to.deep.equal([preview]);
  });

  it('reads the latest preview with its seq, and fails PREVIEW_NOT_FOUND when there is none', async () => {
    const answers = [
      new Response(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), { status: 200, headers: { 'content-type': 'image/jpeg', 'x-preview-seq': '7', 'cache-control': 'no-store' } }),
      new Response(JSON.stringify({ error: { code: 'PREVIEW_NOT_FOUND', message: 'Run r1 has no preview' } }), { status: 404, headers: { 'content-type': 'application/json' } }),
    ];
    const client = new RunloadClient({ baseUrl: 'http://x', apiKey: 'rl_k', fetch: (async () => answers.shift()) as typeof fetch });
    const latest = await client.getRunPreview('r1');
    expect({ contentType: latest.contentType, seq: latest.seq, size: latest.image.size }).to.deep.equal({ contentType: 'image/jpeg', seq: 7, size: 4 });
    expect(await client.getRunPreview('r1').catch((e: unknown) => e)).to.include({ code: 'PREVIEW_NOT_FOUND', status: 404 });
  });
});
