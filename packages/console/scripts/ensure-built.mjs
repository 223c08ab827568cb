/**
 * `pnpm start` serves the console without a build step of its own: this builds it when dist/ is
 * missing or older than any of its sources (a stat of each file, so an up-to-date console costs
 * nothing at start).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'index.html');

function newest(entry) {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((name) => newest(path.join(entry, name))));
}

const sources = ['src', 'index.html', 'vite.config.ts', 'package.json', '../client/src'].map((p) => path.join(root, p));
if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources.map(newest))) {
  const { build } = await import('vite');
  await build({ root, logLevel: 'warn' });
}
