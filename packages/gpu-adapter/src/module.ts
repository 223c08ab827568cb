/**
 * The ComfyUI pool as an inversify module: the executor (probed once before first use when
 * asked) and the node catalog read from the backends. The executor, once made, is registered with
 * the container's `Teardown` (bound to `TEARDOWN`), which closes every connection.
 * @module
 */
import { ContainerModule } from 'inversify';
import { BACKEND_REGISTRY, EXECUTOR, isLapsed, LOGGER, NODE_CATALOG, stopAtTeardown, type BackendCredentials, type BackendRegistry, type Logger } from '@runload/core';
import { ComfyUiExecutor } from './comfyui-executor.js';
import { ComfyUiNodeCatalog, type CatalogBackend } from './comfyui-node-catalog.js';

export interface GpuModuleOptions {
  /** The configured servers (the pool's rows add to them once a follower hands them over). */
  readonly urls: readonly string[];
  /** Credentials for the configured servers. */
  readonly auth?: BackendCredentials | null;
  /** Wait for one health probe of every backend before the executor is handed out (a server does). */
  readonly probe?: boolean;
  /** How long reading `/object_info` from a backend may take; default 3000 ms. */
  readonly catalogTimeoutMs?: number;
}

export function gpuModule(options: GpuModuleOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<ComfyUiExecutor>(EXECUTOR)
      .toResolvedValue(async (log: Logger) => {
        const executor = new ComfyUiExecutor({ urls: options.urls, auth: options.auth ?? null, log });
        if (options.probe) await executor.probe();
        return executor;
      }, [LOGGER])
      .inSingletonScope()
      .onActivation(stopAtTeardown('executor', (executor: ComfyUiExecutor) => executor.close()));
    bind(NODE_CATALOG)
      .toResolvedValue((registry: BackendRegistry) => new ComfyUiNodeCatalog(poolBackends(registry, options.urls, options.auth ?? null), options.catalogTimeoutMs ?? 3000), [BACKEND_REGISTRY])
      .inSingletonScope();
  });
}

/**
 * Every backend of the pool, read when a workflow is typed: the registry's rows (a lapsed
 * registration left out) and the configured servers, so typing and capability consider the
 * whole pool, not its first server.
 */
export function poolBackends(registry: BackendRegistry, urls: readonly string[], auth: BackendCredentials | null): () => Promise<readonly CatalogBackend[]> {
  return async () => {
    const now = Date.now();
    const rows = (await registry.list()).filter((b) => !isLapsed(b, now));
    const known = new Set(rows.map((b) => b.url));
    return [...rows.map((b) => ({ url: b.url, auth: b.auth })), ...urls.filter((u) => !known.has(u)).map((url) => ({ url, auth }))];
  };
}
