/** A run's inputs reach the prompt, whatever ':' the node ids and widget names hold. */
import { expect } from 'chai';
import type { Workflow } from '@runload/core';
import { applyInputs } from '@runload/gpu-adapter';

const WORKFLOW: Workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'Switch', inputs: { 'mode:x': 'a', image: ['1', 0] } },
  '12:5': { class_type: 'KSampler', inputs: { seed: 1, steps: 20 } },
};

describe('applyInputs', () => {
  it('sets a widget whose name holds a colon', () => {
    const prompt = applyInputs(WORKFLOW, { '2:mode:x': 'b' });
    expect(prompt['2']?.inputs).to.deep.equal({ 'mode:x': 'b', image: ['1', 0] });
  });

  it('sets a widget of a node whose id holds a colon (a flattened subgraph)', () => {
    const prompt = applyInputs(WORKFLOW, { '12:5:seed': 7 });
    expect(prompt['12:5']?.inputs).to.deep.equal({ seed: 7, steps: 20 });
  });

  it('sets media overrides and leaves the published workflow unchanged', () => {
    const prompt = applyInputs(WORKFLOW, { '2:mode:x': 'c' }, { '1:image': 'uploaded.png' });
    expect(prompt['1']?.inputs).to.deep.equal({ image: 'uploaded.png' });
    expect(WORKFLOW['2']?.inputs['mode:x']).to.equal('a');
  });

  it('refuses a key that names no node, rather than dropping it', () => {
    expect(() => applyInputs(WORKFLOW, { '9:seed': 1 })).to.throw(/names no node/);
  });
});
