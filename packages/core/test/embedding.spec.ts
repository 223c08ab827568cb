/** The in-memory embedding example of docs/embedding.md, in a test of its own. */
import { expect } from 'chai';
import { createRunloadApi, DEFAULT_LIMITS } from '@runload/core';
import { createInMemoryPorts } from '@runload/core/testing';

const myApiFormatWorkflow = {
  '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'x', images: ['2', 0] } },
  '2': { class_type: 'EmptyImage', inputs: {} },
};

describe('embedding the core with in-memory adapters', () => {
  it('queues a run in a few lines', async () => {
    const api = createRunloadApi(createInMemoryPorts(), DEFAULT_LIMITS);
    const account = await api.accounts.create('Ada', 'starter');
    const { apiKey } = await api.apiKeys.create(account.id);
    const principal = await api.authenticate.execute(apiKey, '127.0.0.1');
    const app = await api.apps.publish({ name: 'blur', workflow: myApiFormatWorkflow });
    const { run } = await api.createRun.execute({ principal, appVersionId: app.id, body: { inputs: {} } });
    expect(run.status).to.equal('queued');
    expect((await api.getRun.execute(principal, run.id)).queuePosition).to.equal(0);
  });
});
