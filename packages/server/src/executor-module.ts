/**
 * An executor brought by a test or an embedder instead of the ComfyUI pool: closed at teardown like
 * the pool's; node definitions still come from the pool's backends.
 * @module
 */
import { ContainerModule } from 'inversify';
import { BACKEND_REGISTRY, EXECUTOR, NODE_CATALOG, stopAtTeardown, type BackendRegistry, type Executor } from '@runload/core';
import { ComfyUiNodeCatalog } from '@runload/gpu-adapter';
import { poolBackends } from '@runload/gpu-adapter/module';
import type { RunloadConfig } from './config.js';

export function executorModule(executor: Executor, config: Pick<RunloadConfig, 'comfyUiUrls' | 'comfyUiAuth'>): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Executor>(EXECUTOR)
      .toConstantValue(executor)
      .onActivation(stopAtTeardown('executor', (e: Executor) => e.close()));
    bind(NODE_CATALOG)
      .toResolvedValue((registry: BackendRegistry) => new ComfyUiNodeCatalog(poolBackends(registry, config.comfyUiUrls, config.comfyUiAuth), 3000), [BACKEND_REGISTRY])
      .inSingletonScope();
  });
}
