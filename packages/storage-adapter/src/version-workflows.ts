/**
 * App versions' workflows as a claim places runs with them. A version's workflow never changes and
 * a version is never removed, so a workflow read once stays true on every instance: each is read
 * from its row once, parsed once, and shared by the runs placed with it (placement only reads it).
 * Bounded: the versions least recently placed are forgotten first.
 * @module
 */
import type { Knex } from 'knex';
import { RecentlyUsed, type Workflow } from '@runload/core';
import { json } from './columns.js';

/** Versions remembered; a pool runs far fewer at once (a submitted graph is a version of its own). */
const REMEMBERED = 512;

export class VersionWorkflows {
  private readonly known: RecentlyUsed<string, Workflow>;

  constructor(limit = REMEMBERED) {
    this.known = new RecentlyUsed(limit);
  }

  /** The workflows of these versions: those not remembered are read in one statement on `db`. */
  async of(db: Knex, versionIds: Iterable<string>): Promise<Map<string, Workflow>> {
    const found = new Map<string, Workflow>();
    const missing: string[] = [];
    for (const id of new Set(versionIds)) {
      const workflow = this.known.get(id);
      if (workflow === undefined) missing.push(id);
      else found.set(id, workflow);
    }
    if (missing.length > 0) {
      const rows = (await db('app_versions').whereIn('id', missing).select('id', 'workflow')) as { id: string; workflow: string }[];
      for (const row of rows) {
        const workflow = json<Workflow>(row.workflow);
        this.known.set(row.id, workflow);
        found.set(row.id, workflow);
      }
    }
    return found;
  }
}
