/** App versions' workflows as claims read them: once per version, the least recently used forgotten first. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Workflow } from '@runload/core';
import { KnexAppVersionRepository } from '@runload/storage-adapter';
import { VersionWorkflows } from '../src/version-workflows.js';
import { sqliteDatabase, type TestDatabase } from './databases.js';

describe('the workflows claims place runs with', () => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await sqliteDatabase();
  });
  afterEach(async () => t.close());

  const publish = async (workflow: Workflow) => {
    const id = randomUUID();
    await new KnexAppVersionRepository(t.db).create({ id, appId: randomUUID(), name: 'v', workflow, inputs: [], createdAt: new Date(0), deletedAt: null });
    return id;
  };
  const node = (classType: string): Workflow => ({ '1': { class_type: classType, inputs: {} } });

  it('reads each version once, in one statement for those not read yet, and forgets the least recently used past its bound', async () => {
    const [a, b, c] = [await publish(node('A')), await publish(node('B')), await publish(node('C'))] as [string, string, string];
    const workflows = new VersionWorkflows(2);
    const reads: string[] = [];
    t.db.on('query', (q: { sql: string }) => reads.push(q.sql));
    const first = await workflows.of(t.db, [a, b, a]);
    expect(Object.fromEntries(first)).to.deep.equal({ [a]: node('A'), [b]: node('B') });
    expect(reads, 'both unknown versions in one statement').to.have.length(1);
    await workflows.of(t.db, [b, a]);
    expect(reads, 'both remembered').to.have.length(1);
    // c pushes out b, the least recently used (a was used after it).
    expect((await workflows.of(t.db, [c])).get(c)).to.deep.equal(node('C'));
    await workflows.of(t.db, [a]);
    expect(reads).to.have.length(2);
    expect((await workflows.of(t.db, [b])).get(b)).to.deep.equal(node('B'));
    expect(reads, 'b was forgotten and read again').to.have.length(3);
    expect((await workflows.of(t.db, [randomUUID()])).size, 'a version that is not stored has no workflow').to.equal(0);
  });
});
