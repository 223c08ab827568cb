/**
 * A PostgreSQL database of a suite's own, which its server processes share: created empty from the
 * server's URL, dropped at the end with any connection a killed process left open.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { openDatabase } from '@runload/storage-adapter';

export interface ScratchDatabase {
  /** `postgres://…/runload_<label>_<random>` */
  readonly url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(serverUrl: string, label: string): Promise<ScratchDatabase> {
  const name = `runload_${label}_${randomBytes(4).toString('hex')}`;
  const root = openDatabase({ url: serverUrl, dataDir: tmpdir() });
  await root.raw(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await root.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await root.destroy();
      }
    },
  };
}
