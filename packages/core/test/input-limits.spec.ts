/** Hostile inputs: long strings, unrepresentable numbers, wrong media kinds, and bodies with thousands of bad keys. */
import { expect } from 'chai';
import { CoreError } from '@runload/core';
import { bytes, makeWorld, TINY_PNG } from './fixture.js';

const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as CoreError);

describe('CreateRun input limits', () => {
  it('accepts a STRING of 65,536 characters and refuses one more with INVALID_INPUT', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const create = (text: string) => w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: { '3:text': text } } });
    const { run } = await create('x'.repeat(65_536));
    expect((run.inputs['3:text'] as string).length).to.equal(65_536);
    const error = await failure(create('x'.repeat(65_537)));
    expect(error?.code).to.equal('INVALID_INPUT');
    expect(error?.details).to.deep.equal([{ key: '3:text', reason: 'at most 65536 characters, got 65537' }]);
  });

  it('counts a STRING in characters, not UTF-16 units: 65,536 emoji pass, one more is refused', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const create = (text: string) => w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: { '3:text': text } } });
    const { run } = await create('😀'.repeat(65_536));
    expect(run.inputs['3:text']).to.equal('😀'.repeat(65_536));
    const error = await failure(create(`${'😀'.repeat(65_536)}é`));
    expect(error?.details).to.deep.equal([{ key: '3:text', reason: 'at most 65536 characters, got 65537' }]);
  });

  it('says a number too large to represent (1e400 in JSON) is not finite, not that it is not a number', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const error = await failure(
      w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: JSON.parse('{"inputs":{"2:blur_radius":1e400}}') as unknown }),
    );
    expect(error?.details).to.deep.equal([{ key: '2:blur_radius', reason: 'expected a finite number (this one is too large to represent)' }]);
  });

  it('says "an audio file" when an image is given for an audio input', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const app = await w.api.apps.publish({
      name: 'audio',
      workflow: {
        '1': { class_type: 'LoadAudio', inputs: { audio: 'a.wav' } },
        '2': { class_type: 'SaveAudio', inputs: { audio: ['1', 0], filename_prefix: 'out' } },
      },
    });
    const image = await w.api.uploadAsset.execute({ accountId: p.account.id, filename: 'cat.png', content: bytes(TINY_PNG), maxBytes: 1000 });
    const error = await failure(w.api.createRun.execute({ principal: p, appVersionId: app.id, body: { inputs: { '1:audio': image.id } } }));
    expect(error?.details).to.deep.equal([{ key: '1:audio', reason: 'asset is image/png, expected an audio file' }]);
  });

  it('lists at most 100 problems of a 5,000-key body and says how many more there were', async () => {
    const w = await makeWorld();
    const p = await w.principal();
    const inputs = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`9:k${i}${'y'.repeat(i === 0 ? 10_000 : 0)}`, i]));
    const error = await failure(w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs } }));
    expect(error?.code).to.equal('INVALID_INPUT');
    expect(error?.message).to.equal(`5000 input(s) do not fit app version ${w.app.id}; details lists the first 100, 4900 more not shown`);
    const details = error?.details as readonly { key: string }[];
    expect(details).to.have.length(100);
    expect(details[0]?.key.length, 'a long key is cut').to.be.at.most(201);
    expect(JSON.stringify(error?.details).length).to.be.below(10_000);
  });
});
