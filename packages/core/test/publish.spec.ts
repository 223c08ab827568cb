import { expect } from 'chai';
import { CoreError } from '@runload/core';
import { makeWorld } from './fixture.js';

describe('ManageApps.publish', () => {
  it('refuses a UI-format workflow with a message that says how to export the API format', async () => {
    const w = await makeWorld();
    const error = await w.api.apps.publish({ name: 'ui', workflow: { nodes: [], links: [], version: 0.4 } }).catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'INVALID_WORKFLOW')).to.equal(true);
    expect((error as Error).message).to.contain('Export (API)');
  });

  it('types inputs from loaders and literals, and exposes only the listed keys', async () => {
    const w = await makeWorld();
    expect(w.app.inputs.map((i) => [i.key, i.type])).to.deep.equal([
      ['1:image', 'IMAGE'],
      ['2:blur_radius', 'FLOAT'],
      ['2:sigma', 'FLOAT'],
      ['3:text', 'STRING'],
      ['4:filename_prefix', 'STRING'],
    ]);
    const narrow = await w.api.apps.publish({ name: 'n', workflow: w.app.workflow, appId: w.app.appId, expose: ['3:text'] });
    expect(narrow.appId).to.equal(w.app.appId);
    expect(narrow.id).to.not.equal(w.app.id);
    expect(narrow.inputs.map((i) => i.key)).to.deep.equal(['3:text']);
    const bad = await w.api.apps.publish({ name: 'n', workflow: w.app.workflow, expose: ['3:nope'] }).catch((e: unknown) => e);
    expect(CoreError.hasCode(bad, 'INVALID_WORKFLOW')).to.equal(true);
  });

  it('refuses a workflow whose links name nodes it does not have, naming each', async () => {
    const w = await makeWorld();
    const workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
      '2': { class_type: 'ImageBlur', inputs: { image: ['7', 0], blur_radius: 3 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'out' } },
    };
    const error = await w.api.apps.publish({ name: 'dangling', workflow }).catch((e: unknown) => e as CoreError);
    expect(CoreError.hasCode(error, 'INVALID_WORKFLOW')).to.equal(true);
    expect((error as CoreError).message).to.equal('Node "2": input "image" links to node "7", which the workflow does not have (and in 1 more node)');
    expect((error as CoreError).details).to.deep.equal({
      node_errors: {
        '2': [{ field: 'image', reason: 'link_to_missing_node', message: 'input "image" links to node "7", which the workflow does not have' }],
        '3': [{ field: 'images', reason: 'link_to_missing_node', message: 'input "images" links to node "8", which the workflow does not have' }],
      },
    });
    expect(await w.api.apps.publish({ name: 'whole', workflow: { ...workflow, '7': { class_type: 'LoadImage', inputs: { image: 'b.png' } }, '8': workflow['2'] } })).to.have.property('id');
  });

  it('refuses an input exposed twice and an app id that is no UUID', async () => {
    const w = await makeWorld();
    const message = (p: Promise<unknown>) => p.then(() => 'published', (e: Error & { code?: string }) => `${e.code}: ${e.message}`);
    expect(await message(w.api.apps.publish({ name: 'e', workflow: w.app.workflow, expose: ['1:image', '3:text', '1:image'] }))).to.equal('INVALID_WORKFLOW: --expose names 1:image twice');
    expect(await message(w.api.apps.publish({ name: 'a', workflow: w.app.workflow, appId: 'not-a-uuid' }))).to.equal('INVALID_REQUEST: --app must be an app id (a UUID), got "not-a-uuid"');
  });
});
