// Where the built console is, for the server that serves it: beside this file, in dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function consoleRoot() {
  const root = fileURLToPath(new URL('./dist/', import.meta.url));
  return existsSync(`${root}index.html`) ? root : undefined;
}
