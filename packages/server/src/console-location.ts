/**
 * Where the built web console is: found through the `@runload/console` package's exports, so the
 * same lookup works in the repository and in a production install. Undefined when it has not
 * been built (the server then answers 404 on `/console`, naming `pnpm build`).
 * @module
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export function consoleRoot(): string | undefined {
  try {
    const page = createRequire(import.meta.url).resolve('@runload/console/index.html');
    return existsSync(page) ? path.dirname(page) : undefined;
  } catch {
    return undefined;
  }
}
