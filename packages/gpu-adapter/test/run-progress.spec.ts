/** A run's progress as a whole, from the messages ComfyUI 0.3.64 and older servers send for it. */
import { expect } from 'chai';
import { RunProgress } from '../src/run-progress.js';

const said = (p: ReturnType<RunProgress['onMessage']>) => (p ? `${p.nodeId}:${p.value}/${p.max}` : null);

describe('RunProgress', () => {
  it('leaves cached nodes out of the nodes to run and refines the running node by its steps (0.3.64 messages)', () => {
    const progress = new RunProgress(new Set(['1', '2', '3', '4']));
    const seen = [
      progress.onMessage('execution_start', {}),
      progress.onMessage('execution_cached', { nodes: ['1'] }),
      progress.onMessage('progress_state', { nodes: { '2': { state: 'running', value: 0, max: 1, node_id: '2' } } }),
      progress.onMessage('executing', { node: '2' }),
      progress.onMessage('progress', { value: 5, max: 20, node: '2' }),
      progress.onMessage('progress_state', { nodes: { '2': { state: 'finished', value: 20, max: 20, node_id: '2' } } }),
      progress.onMessage('executing', { node: '3' }),
      progress.onMessage('execution_success', {}),
      progress.onMessage('executing', { node: null }),
    ].map(said);
    expect(seen).to.deep.equal([null, 'null:0/3', '2:0/3', '2:0/3', '2:0.25/3', 'null:1/3', '3:1/3', 'null:3/3', 'null:3/3']);
  });

  it('counts a node done when the next one starts on a server without progress_state, and completes at the end', () => {
    const progress = new RunProgress(new Set(['1', '2', '3']));
    expect(said(progress.onMessage('executing', { node: '1' }))).to.equal('1:0/3');
    expect(said(progress.onMessage('executing', { node: '2' }))).to.equal('2:1/3');
    expect(said(progress.onMessage('executing', { node: null }))).to.equal('null:3/3');
  });

  it('does not complete a run that failed, and knows only the node steps without the node list', () => {
    const failed = new RunProgress(new Set(['1', '2']));
    failed.onMessage('executing', { node: '1' });
    failed.onMessage('execution_error', { node_id: '1' });
    expect(failed.onMessage('executing', { node: null })).to.equal(null);
    const unknown = new RunProgress(null);
    expect(unknown.onMessage('executing', { node: '5' })).to.deep.equal({ value: 0, max: 1, nodeId: '5' });
    expect(unknown.onMessage('progress', { value: 3, max: 4, node: '5' })).to.deep.equal({ value: 3, max: 4, nodeId: '5' });
  });
});
