import { expect } from 'chai';
import { toRun } from '../src/run-row.js';

/** A runs row as the database returns it. */
function row(workflow: string): Record<string, unknown> {
  return {
    id: 'r1',
    account_id: 'a1',
    app_version_id: 'v1',
    status: 'running',
    created_at: 1_700_000_000_000,
    started_at: null,
    finished_at: null,
    inputs: '{"1:seed":7}',
    workflow,
    progress: null,
    outputs: '[]',
    error: null,
    metrics: '{"queueMs":null,"runMs":null,"gpuSeconds":null}',
    backend_id: null,
    lease_owner: null,
    lease_expires_at: null,
    cancel_requested: 0,
    attempts: 1,
  };
}

describe('a run read from its row', () => {
  it('parses its workflow only when something reads it (a poll never does)', () => {
    const run = toRun(row('{not json'));
    expect(run.status).to.equal('running');
    expect(run.inputs).to.deep.equal({ '1:seed': 7 });
    expect(() => run.workflow).to.throw(SyntaxError);
  });

  it('shows its workflow to a spread, to JSON and to deep equality, parsed once', () => {
    const run = toRun(row('{"3":{"class_type":"KSampler","inputs":{"seed":1}}}'));
    const workflow = { '3': { class_type: 'KSampler', inputs: { seed: 1 } } };
    expect({ ...run }.workflow).to.deep.equal(workflow);
    expect(JSON.parse(JSON.stringify(run)).workflow).to.deep.equal(workflow);
    expect(run).to.deep.include({ id: 'r1', workflow });
    expect(run.workflow).to.equal(run.workflow);
  });
});
