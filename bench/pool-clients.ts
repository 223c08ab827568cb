/**
 * The pool benchmark's clients, run in a process of their own: their polls and creates then never
 * hold up the event loop the fake ComfyUIs answer from (a real pool's servers are other machines),
 * so a gap measured on a fake is the server's and not the load generator's.
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createRun, now, pollUntilDone, type Client } from './dispatch-client.js';

interface Load {
  readonly client: Client;
  readonly clients: number;
  readonly pollMs: number;
  /** First sigma to use: each job differs in its blur (a prompt identical to the last one is answered from the cache). */
  readonly firstSigma: number;
}

const FLAG = '--pool-clients';

/** The clients' process, started and loaded (its start is never inside a measured window). */
export class PoolClients {
  private constructor(private readonly child: ChildProcess) {}

  static async start(load: Load): Promise<PoolClients> {
    // Started as this process was (through tsx, with the same conditions).
    const child = fork(fileURLToPath(import.meta.url), [FLAG, JSON.stringify(load)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await once(child, 'message');
    return new PoolClients(child);
  }

  /** Each client creates a run and polls it every `pollMs` until it is done, until `until` (epoch ms). */
  async drive(until: number): Promise<void> {
    this.child.send({ until });
    const [message] = (await once(this.child, 'message')) as [{ error?: string }];
    if (message.error) throw new Error(`the pool's clients: ${message.error}`);
  }

  async stop(): Promise<void> {
    this.child.disconnect();
    if (this.child.exitCode === null) await once(this.child, 'exit');
  }
}

if (process.argv[2] === FLAG && process.send) {
  const { client, clients, pollMs, firstSigma } = JSON.parse(process.argv[3] ?? '{}') as Load;
  let blurs = 0;
  const freshSigma = () => firstSigma + (blurs += 1) / 1e7;
  const drive = (until: number) =>
    Promise.all(
      Array.from({ length: clients }, async () => {
        while (now() < until) await pollUntilDone(client, await createRun(client, { '2:sigma': freshSigma() }), pollMs);
      }),
    );
  process.on('message', (message: { until: number }) => {
    drive(message.until).then(
      () => process.send?.({}),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
  });
  process.send({ ready: true });
}
