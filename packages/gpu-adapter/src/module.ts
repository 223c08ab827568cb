/**
 * The ComfyUI pool as an inversify module: the executor (probed once before first use when
 * asked) and the node catalog read from the backends. Deactivation closes every connection.
 * @module
 */
import { ContainerModule } from 'inversify';
import { EXECUTOR, LOGGER, NODE_CATALOG, type Logger } from '@runload/core';
import { ComfyUiExecutor } from './comfyui-executor.js';
import { ComfyUiNodeCatalog } from './comfyui-node-catalog.js';

export interface GpuModuleOptions {
  readonly urls: readonly string[];
  /** Wait for one health probe of every backend before the executor is handed out (a server does). */
  readonly probe?: boolean;
  /** How long reading `/object_info` from a backend may take; default 3000 ms. */
  readonly catalogTimeoutMs?: number;
}

export function gpuModule(options: GpuModuleOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<ComfyUiExecutor>(EXECUTOR)
      .toResolvedValue(async (log: Logger) => {
        const executor = new ComfyUiExecutor({ urls: options.urls, log });
        if (options.probe) await executor.probe();
        return executor;
      }, [LOGGER])
      .inSingletonScope()
      .onDeactivation((executor) => executor.close());
    bind(NODE_CATALOG).toConstantValue(new ComfyUiNodeCatalog(options.urls, options.catalogTimeoutMs ?? 3000));
  });
}
