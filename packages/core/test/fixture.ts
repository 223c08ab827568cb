/** A complete in-memory runload for use-case tests, with a fake clock and sequential ids. */
import { CoreError, createRunloadApi, DEFAULT_LIMITS, mergeLimits, RunLifecycle, type Executor, type LimitsConfig, type NamedLocks, type Principal, type Tier } from '@runload/core';
import { createInMemoryPorts, FakeClock, SequentialIds } from '@runload/core/testing';

/** 2026-03-10 12:00:00.000 UTC: the start of a minute and of an hour. */
export const T0 = Date.UTC(2026, 2, 10, 12, 0, 0, 0);

export const TINY_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082',
  'hex',
);

export const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1.5 } },
  '3': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse', clip: ['9', 1] } },
  '9': { class_type: 'CheckpointLoaderSimple', inputs: {} },
  '4': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' } },
};

export async function* bytes(...chunks: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const c of chunks) yield c;
}

export async function makeWorld(options: { limits?: unknown; executor?: Executor; locks?: NamedLocks } = {}) {
  const clock = new FakeClock(T0);
  const ids = new SequentialIds();
  const ports = createInMemoryPorts({ clock, ids, ...(options.executor ? { executor: options.executor } : {}) });
  const limits: LimitsConfig = options.limits ? mergeLimits(options.limits) : DEFAULT_LIMITS;
  const api = createRunloadApi(options.locks ? { ...ports, locks: options.locks } : ports, limits);
  const app = await api.apps.publish({ name: 'blur', workflow: WORKFLOW });
  async function principal(tier: Tier = 'starter'): Promise<Principal & { apiKey: string }> {
    const account = await api.accounts.create(`acct-${tier}`, tier);
    const issued = await api.apiKeys.create(account.id);
    return { account, keyId: issued.key.id, apiKey: issued.apiKey };
  }
  return { clock, ids, ports, api, app, principal, limits };
}

/** The code of the CoreError a call fails with, or 'OK'. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (error) {
    if (CoreError.is(error)) return error.code;
    throw error;
  }
}

type World = Awaited<ReturnType<typeof makeWorld>>;

/**
 * A run of the world's app by a new account of `tier`, started `seconds` ago, as the lifecycle
 * that follows it recorded it, and its timing on the backend until now.
 */
export async function startedRun(w: World, seconds: number, tier: Tier = 'starter') {
  const p = await w.principal(tier);
  const lifecycle = new RunLifecycle(w.ports.runs, w.ports.assets, w.ports.blobs, w.ports.workSignal, w.clock);
  const created = (await w.api.createRun.execute({ principal: p, appVersionId: w.app.id, body: { inputs: {} } })).run;
  await lifecycle.started(created);
  w.clock.advance(seconds * 1000);
  const run = await w.ports.runs.get(created.id);
  if (!run) throw new Error('no run');
  return { p, lifecycle, run, timing: { startedAtMs: w.clock.nowMs() - seconds * 1000, finishedAtMs: w.clock.nowMs() } };
}

/** Another account's run of the world's app, finished after `seconds` GPU-seconds: the app version's estimate is then that. */
export async function finishRunOfSeconds(w: World, seconds: number): Promise<void> {
  const { lifecycle, run } = await startedRun(w, seconds, 'ultra');
  await lifecycle.succeeded(run, [], { startedAtMs: 0, finishedAtMs: seconds * 1000 });
}
