/** A complete in-memory runload behind the HTTP adapter, on either transport, with a fake clock. */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRunloadApi, mergeLimits, type Executor, type Logger, type NodeCatalog, type Tier } from '@runload/core';
import { createInMemoryPorts, FakeClock } from '@runload/core/testing';
import { createHttpApp, startHttpServer, type AdminRoute, type HttpMetrics, type RunningHttpServer } from '@runload/http-adapter';
import { conformingFetch, createResponseChecker, type ResponseChecker } from '@runload/api-schema/testing';

/** Every response a suite receives is checked against the OpenAPI document. */
const conformance = createResponseChecker();

export type Transport = 'fetch' | 'node';
export const TRANSPORTS: readonly Transport[] = ['fetch', 'node'];

/** 2026-03-10 12:00:00.000 UTC: the start of a minute and of an hour. */
export const T0 = Date.UTC(2026, 2, 10, 12, 0, 0, 0);

export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082',
  'hex',
);

export const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1.5 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' } },
};

export interface Harness {
  readonly clock: FakeClock;
  readonly ports: ReturnType<typeof createInMemoryPorts>;
  readonly api: ReturnType<typeof createRunloadApi>;
  readonly appVersionId: string;
  readonly uploadDir: string;
  /** Base URL of the listening server (node transport only). */
  readonly url: string | null;
  /** Uploads whose bytes the blob store is still reading or holds staged: 0 once every upload is settled. */
  unsettledUploads(): number;
  request(pathname: string, init?: RequestInit): Promise<Response>;
  user(tier?: Tier): Promise<{ accountId: string; keyId: string; key: string; auth: Record<string, string> }>;
  close(): Promise<void>;
}

export async function makeHarness(
  transport: Transport,
  options: {
    limits?: unknown;
    maxUploadBytes?: number;
    executor?: Executor;
    trustedProxies?: string[];
    health?: () => Promise<{ ok: boolean } & Record<string, unknown>>;
    corsOrigins?: string[];
    log?: Logger;
    metrics?: HttpMetrics;
    adminRoutes?: AdminRoute[];
    nodeCatalog?: NodeCatalog;
    /** What responses are checked against (the `/api/v1` document by default). */
    checker?: ResponseChecker;
  } = {},
): Promise<Harness> {
  const clock = new FakeClock(T0);
  const ports = createInMemoryPorts({ clock, ...(options.executor ? { executor: options.executor } : {}), ...(options.nodeCatalog ? { nodeCatalog: options.nodeCatalog } : {}) });
  const api = createRunloadApi(ports, mergeLimits(options.limits ?? {}));
  // The test's stand-in for the data directory, with the upload scratch directory inside it.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runload-http-'));
  const uploadDir = path.join(dataDir, 'uploads');
  mkdirSync(uploadDir);
  let reading = 0;
  const stage = ports.blobs.stage.bind(ports.blobs);
  ports.blobs.stage = async (source, stageOptions) => {
    reading += 1;
    try {
      return await stage(source, stageOptions);
    } finally {
      reading -= 1;
    }
  };
  const app = createHttpApp(api, {
    maxUploadBytes: options.maxUploadBytes ?? 1024 * 1024,
    uploadDir,
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    health: options.health ?? (async () => ({ ok: true, database: { ok: true } })),
    log: options.log ?? (() => undefined),
    ...(options.adminRoutes ? { adminRoutes: options.adminRoutes } : {}),
  });
  let server: RunningHttpServer | null = null;
  if (transport === 'node') server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  const published = await api.apps.publish({ name: 'blur', workflow: WORKFLOW });
  return {
    clock,
    ports,
    api,
    appVersionId: published.id,
    uploadDir,
    url: server?.url ?? null,
    unsettledUploads: () => reading + ports.blobs.stagedCount,
    request: conformingFetch(options.checker ?? conformance, async (pathname, init) =>
      server ? fetch(`${server.url}${pathname}`, init) : app.fetch(new Request(`http://runload.test${pathname}`, init)),
    ),
    user: async (tier = 'starter') => {
      const account = await api.accounts.create(`user-${tier}`, tier);
      const issued = await api.apiKeys.create(account.id);
      return { accountId: account.id, keyId: issued.key.id, key: issued.apiKey, auth: { authorization: `Bearer ${issued.apiKey}` } };
    },
    close: async () => {
      await server?.close(1000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function jsonInit(body: unknown, headers: Record<string, string>, method = 'POST'): RequestInit {
  return { method, headers: { ...headers, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

export function leftovers(dir: string): string[] {
  return readdirSync(dir);
}
