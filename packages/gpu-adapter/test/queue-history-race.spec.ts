/**
 * A run that finishes between the client's `/queue` read and its `/history` read must never be
 * reported unknown (lost): a scripted server answers exactly that sequence.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ComfyUiExecutor } from '@runload/gpu-adapter';

const RUN = '0000000d-0000-4000-8000-000000000001';

describe('a run finishing between the /queue and /history reads', () => {
  let server: Server;
  let url: string;
  let historyReads = 0;
  before(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/system_stats') return res.end('{"system":{},"devices":[]}');
      // The run has just left the queue...
      if (req.url === '/queue') return res.end('{"queue_running":[],"queue_pending":[]}');
      if (req.url?.startsWith('/history?')) return res.end('{}');
      if (req.url?.startsWith('/history/')) {
        historyReads += 1;
        // ...and its history entry appears only for the second read.
        if (historyReads === 1) return res.end('{}');
        return res.end(
          JSON.stringify({
            [RUN]: {
              prompt: [0, RUN, {}, { runload_run_id: RUN }, ['3']],
              outputs: { '3': { images: [{ filename: 'a_00001_.png', subfolder: '', type: 'output' }] } },
              status: { status_str: 'success', completed: true, messages: [['execution_start', { timestamp: 1000 }], ['execution_success', { timestamp: 1800 }]] },
            },
          }),
        );
      }
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('reads the history again and reports the outcome, never unknown', async () => {
    const executor = new ComfyUiExecutor({ urls: [url] });
    const state = await executor.inspect(url, RUN);
    expect(state).to.deep.equal({
      state: 'succeeded',
      outputs: [{ nodeId: '3', filename: 'a_00001_.png', subfolder: '', type: 'output' }],
      timing: { startedAtMs: 1000, finishedAtMs: 1800 },
    });
    expect(historyReads).to.equal(2);
    await executor.close();
  });
});
