/** The contract of AppVersionRepository. Every adapter runs it. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AppVersion } from '../domain/app-version.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 789);

function aVersion(overrides: Partial<AppVersion> = {}): AppVersion {
  return {
    id: randomUUID(),
    appId: randomUUID(),
    name: 'Portrait ✨',
    workflow: {
      '3': { class_type: 'KSampler', inputs: { seed: 156680208700286, steps: 20, cfg: 8.5, sampler_name: 'euler', model: ['4', 0] } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a "quoted" prompt\nwith lines', clip: ['4', 1] }, _meta: { title: 'Positive' } },
    },
    inputs: [
      { key: '3:seed', nodeId: '3', widget: 'seed', nodeType: 'KSampler', type: 'INT', default: 156680208700286, min: 0, max: 2 ** 53 - 1, step: 1 },
      { key: '3:sampler_name', nodeId: '3', widget: 'sampler_name', nodeType: 'KSampler', type: 'COMBO', default: 'euler', options: ['euler', 'dpmpp_2m'] },
      { key: '6:text', nodeId: '6', widget: 'text', nodeType: 'CLIPTextEncode', type: 'STRING', default: 'a "quoted" prompt\nwith lines' },
    ],
    createdAt: new Date(T),
    deletedAt: null,
    ...overrides,
  };
}

function aGraphVersion(graphHash: string): AppVersion & { graphHash: string } {
  return { ...aVersion({ name: 'graph' }), graphHash };
}

export function describeAppVersionRepositoryContract(
  name: string,
  setup: () => Promise<{ subject: AppVersionRepository; teardown?: () => Promise<void> }>,
): void {
  describe(`AppVersionRepository contract: ${name}`, () => {
    let versions: AppVersionRepository;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      versions = made.subject;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('returns null for an id that never existed', async () => {
      expect(await versions.get(randomUUID())).to.equal(null);
    });

    it('round-trips the workflow, the typed inputs and the times exactly', async () => {
      const v = aVersion();
      await versions.create(v);
      expect(await versions.get(v.id)).to.deep.equal(v);
    });

    it('hands out copies: changing a returned version does not change the stored one', async () => {
      const v = aVersion();
      await versions.create(v);
      const got = (await versions.get(v.id)) as AppVersion;
      (got.workflow['3'] as { inputs: Record<string, unknown> }).inputs['steps'] = 99;
      expect(await versions.get(v.id)).to.deep.equal(v);
    });

    it('refuses a second version with the same id and keeps the first', async () => {
      const v = aVersion();
      await versions.create(v);
      const error = await versions.create({ ...v, name: 'other' }).then(() => null, (e: unknown) => e);
      expect(error, 'a duplicate id is refused').to.not.equal(null);
      expect(await versions.get(v.id)).to.deep.equal(v);
    });

    it('marks a version deleted without removing it, keeping the earliest deletion time', async () => {
      const v = aVersion();
      await versions.create(v);
      expect(await versions.markDeleted(v.id, new Date(T + 10))).to.deep.equal({ ...v, deletedAt: new Date(T + 10) });
      expect((await versions.markDeleted(v.id, new Date(T + 20)))?.deletedAt?.getTime()).to.equal(T + 10);
      expect((await versions.markDeleted(v.id, new Date(T + 5)))?.deletedAt?.getTime()).to.equal(T + 5);
      expect(await versions.get(v.id)).to.deep.equal({ ...v, deletedAt: new Date(T + 5) });
      expect((await versions.list()).map((x) => x.id)).to.include(v.id);
    });

    it('returns null when deleting an unknown version', async () => {
      expect(await versions.markDeleted(randomUUID(), new Date(T))).to.equal(null);
    });

    it('lists every version oldest first', async () => {
      const made = [aVersion({ createdAt: new Date(T + 2) }), aVersion({ createdAt: new Date(T) }), aVersion({ createdAt: new Date(T + 1) })];
      for (const v of made) await versions.create(v);
      const mine = new Set(made.map((v) => v.id));
      expect((await versions.list()).filter((v) => mine.has(v.id))).to.deep.equal([made[1], made[2], made[0]]);
    });

    it('lists live versions newest first, a page at a time, skipping deleted ones', async () => {
      const made = [0, 1, 2, 3, 4].map((i) => aVersion({ createdAt: new Date(T + 1000 * 60 * 60 * 24 * 365 * 50 + (i % 4)) }));
      for (const v of made) await versions.create(v);
      await versions.markDeleted((made[2] as AppVersion).id, new Date(T));
      const seen: AppVersion[] = [];
      let after: string | null = null;
      for (let page = 0; page < 1000; page += 1) {
        const got: { versions: AppVersion[]; nextCursor: string | null } = await versions.listLive({ limit: 2, after });
        expect(got.versions.length).to.be.at.most(2);
        seen.push(...got.versions);
        if (got.nextCursor === null) break;
        after = got.nextCursor;
      }
      const mine = new Map(made.map((v) => [v.id, v]));
      const listed = seen.filter((v) => mine.has(v.id));
      const expected = made
        .filter((v) => v.id !== (made[2] as AppVersion).id)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
      expect(listed).to.deep.equal(expected);
      expect(new Set(seen.map((v) => v.id)).size, 'no version on two pages').to.equal(seen.length);
      expect(seen.every((v) => v.deletedAt === null)).to.equal(true);
    });

    it('keeps one version per submitted graph, found by every caller, and lists none of them as apps', async () => {
      const published = aVersion();
      await versions.create(published);
      const made = await Promise.all([aGraphVersion('a'.repeat(64)), aGraphVersion('a'.repeat(64))].map((v) => versions.findOrCreateForGraph(v)));
      expect(made.map((v) => v.id)[0]).to.equal(made[1]?.id);
      expect(await versions.get(made[0]?.id ?? '')).to.deep.equal(made[0]);
      expect((await versions.findOrCreateForGraph(aGraphVersion('a'.repeat(64)))).id).to.equal(made[0]?.id);
      const other = await versions.findOrCreateForGraph(aGraphVersion('b'.repeat(64)));
      expect(other.id).to.not.equal(made[0]?.id);
      const listed = (await versions.list()).map((v) => v.id);
      const live = (await versions.listLive({ limit: 100 })).versions.map((v) => v.id);
      for (const ids of [listed, live]) {
        expect(ids).to.include(published.id);
        expect(ids).to.not.include(made[0]?.id);
        expect(ids).to.not.include(other.id);
      }
    });

    it('refuses a cursor it did not issue', async () => {
      const error = await versions.listLive({ limit: 2, after: 'nonsense' }).then(() => null, (e: unknown) => e);
      expect((error as { code?: string } | null)?.code).to.equal('INVALID_REQUEST');
    });
  });
}
