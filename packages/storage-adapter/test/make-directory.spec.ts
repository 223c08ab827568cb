/**
 * `mkdir -p` that cannot hang: each missing level made once, the first refusal thrown.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeDirectory, makeDirectoryAsync } from '../src/make-directory.js';

const variants = [
  ['makeDirectory', async (dir: string) => makeDirectory(dir)],
  ['makeDirectoryAsync', makeDirectoryAsync],
] as const;

describe('making a directory and its parents', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'runload-mkdir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  for (const [name, make] of variants) {
    describe(name, () => {
      it('makes every missing level', async () => {
        const dir = path.join(root, 'a', 'b', 'c');
        await make(dir);
        expect(statSync(dir).isDirectory()).to.equal(true);
      });

      it('takes an existing directory as made', async () => {
        await make(path.join(root, 'a'));
        await make(path.join(root, 'a'));
        expect(statSync(path.join(root, 'a')).isDirectory()).to.equal(true);
      });

      it('throws ENOTDIR when a file stands where a parent should be, and makes nothing', async () => {
        writeFileSync(path.join(root, 'file'), 'x');
        const error = await make(path.join(root, 'file', 'a', 'b')).then(() => null, (e: NodeJS.ErrnoException) => e);
        expect(error?.code).to.equal('ENOTDIR');
        expect(existsSync(path.join(root, 'file', 'a'))).to.equal(false);
      });

      it('throws where a parent exists but refuses children (under /proc), where Node\'s recursive mkdir never returns', async function () {
        if (process.platform !== 'linux') this.skip();
        const error = await make('/proc/runload-test/a').then(() => null, (e: NodeJS.ErrnoException) => e);
        expect(error?.code).to.equal('ENOENT');
        expect(error?.message).to.equal("ENOENT: no such file or directory, mkdir '/proc/runload-test'");
      });
    });
  }
});
