import { expect } from 'chai';
import { CoreError, ManageApps } from '@runload/core';
import { createInMemoryPorts, SequentialIds, StaticNodeCatalog } from '@runload/core/testing';
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

  it('refuses a workflow with no output node when a backend says which classes are, and publishes it when one is unknown', async () => {
    // As a backend's /object_info says it: every class with its output_node.
    const catalog = new StaticNodeCatalog({
      LoadImage: { input: { required: { image: [['example.png'], { image_upload: true }] } }, output_node: false },
      ImageInvert: { input: { required: { image: ['IMAGE'] } }, output_node: false },
      SaveImage: { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING', {}] } }, output_node: true },
    });
    const ports = createInMemoryPorts({ ids: new SequentialIds() });
    const apps = new ManageApps(ports.appVersions, catalog, ports.clock, ports.ids);
    const load = { class_type: 'LoadImage', inputs: { image: 'example.png' } };
    const invert = { class_type: 'ImageInvert', inputs: { image: ['1', 0] } };
    const error = await apps.publish({ name: 'no output', workflow: { '1': load, '2': invert } }).catch((e: unknown) => e as CoreError);
    expect(CoreError.hasCode(error, 'INVALID_WORKFLOW')).to.equal(true);
    expect((error as CoreError).message).to.contain('no output node').and.to.contain('Prompt has no outputs');
    expect(await ports.appVersions.list(), 'nothing published').to.deep.equal([]);
    const saved = await apps.publish({ name: 'saved', workflow: { '1': load, '2': invert, '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' } } } });
    expect(saved.name).to.equal('saved');
    // A custom node the catalog does not know may be the output: not refused.
    const custom = await apps.publish({ name: 'custom', workflow: { '1': load, '2': invert, '3': { class_type: 'UploadToBucket', inputs: { image: ['2', 0] } } } });
    expect(custom.name).to.equal('custom');
  });
});
