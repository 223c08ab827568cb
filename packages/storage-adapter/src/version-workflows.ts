/**
 * App versions' workflows as a claim places runs with them. A version's workflow never changes and
 * a version is never removed, so a workflow read once stays true on every instance: each is read
 * from its row once, parsed once, and shared by the runs placed with it (placement only reads it).
 * Bounded: the versions least recently placed are forgotten first.
 * @module
 */
import type { Knex } from 'knex';
import type { Workflow } from '@runload/core';

/** Versions remembered; a pool runs far fewer at once (a submitted graph is a version of its own). */
const REMEMBERED = 512;

export class VersionWorkflows {
  private readonly known = new Map<string, Workflow>();

  constructor(private readonly limit = REMEMBERED) {}

  /** The workflows of these versions: those not remembered are read in one statement on `db`. */
  async of(db: Knex, versionIds: Iterable<string>): Promise<Map<string, Workflow>> {
    const found = new Map<string, Workflow>();
    const missing: string[] = [];
    for (const id of new Set(versionIds)) {
      const workflow = this.known.get(id);
      if (workflow === undefined) missing.push(id);
      else found.set(id, this.touch(id, workflow));
    }
    if (missing.length > 0) {
      const rows = (await db('app_versions').whereIn('id', missing).select('id', 'workflow')) as { id: string; workflow: string }[];
      for (const row of rows) found.set(row.id, this.touch(row.id, JSON.parse(row.workflow) as Workflow));
    }
    return found;
  }

  /** Remembers the workflow as the most recently used, forgetting the least recently used past the limit. */
  private touch(id: string, workflow: Workflow): Workflow {
    this.known.delete(id);
    this.known.set(id, workflow);
    if (this.known.size > this.limit) this.known.delete(this.known.keys().next().value as string);
    return workflow;
  }
}
