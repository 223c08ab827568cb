/**
 * `mkdir -p`, one level at a time.
 *
 * Node 20's own recursive `mkdir` retries without end when a parent exists but refuses a child
 * with ENOENT, as every directory under `/proc` does: a data directory set there would hang the
 * process at start. Here each level is made once, and the first refusal is thrown.
 * @module
 */
import { mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Makes `dir` and its missing parents. An existing entry of that name is taken as made. */
export function makeDirectory(dir: string): void {
  const target = path.resolve(dir);
  try {
    mkdirSync(target);
    return;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return;
    if (codeOf(error) !== 'ENOENT' || path.dirname(target) === target) throw error;
  }
  makeDirectory(path.dirname(target));
  try {
    mkdirSync(target);
  } catch (error) {
    // Made meanwhile by another process: as good as made here.
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}

/** As {@link makeDirectory}, without blocking the event loop. */
export async function makeDirectoryAsync(dir: string): Promise<void> {
  const target = path.resolve(dir);
  try {
    await mkdir(target);
    return;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return;
    if (codeOf(error) !== 'ENOENT' || path.dirname(target) === target) throw error;
  }
  await makeDirectoryAsync(path.dirname(target));
  try {
    await mkdir(target);
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}
