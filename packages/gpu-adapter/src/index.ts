export { BuiltinNodeCatalog } from './builtin-node-catalog.js';
export { BUILTIN_NODE_DEFINITIONS } from './builtin-node-definitions.js';
export { ComfyUiNodeCatalog, type CatalogBackend } from './comfyui-node-catalog.js';
export { ComfyUiExecutor, type ComfyUiExecutorOptions } from './comfyui-executor.js';
export { applyInputs } from './apply-inputs.js';
export { DnsNameResolver } from './dns-name-resolver.js';
