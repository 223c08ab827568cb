/**
 * The standalone server: open the runtime, listen, and stop gracefully on SIGTERM/SIGINT
 * (stop accepting, finish requests in flight, stop dispatching, close the database).
 * @module
 */
import type { RunloadConfig } from './config.js';
import { createLogger } from './log.js';
import { openRuntime } from './runtime.js';

export async function serve(config: RunloadConfig): Promise<void> {
  const log = createLogger('server');
  const runtime = await openRuntime(config, { dispatch: true });
  const server = await runtime.listen().catch(async (error: unknown) => {
    // A port taken or a host that does not resolve: no dispatcher may go on without the API.
    await runtime.close().catch(() => undefined);
    throw error;
  });
  process.stdout.write(`listening on ${server.url}\n`);
  log('info', 'listening', { url: server.url, database: config.databaseUrl ? 'postgres' : 'sqlite', dataDir: config.dataDir, comfyUi: config.comfyUiUrls });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log('info', 'stopping', { signal });
    try {
      await runtime.close();
      log('info', 'stopped', {});
      process.exit(0);
    } catch (error) {
      log('error', 'unclean stop', { error: String(error) });
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
