export { BuiltinNodeCatalog } from './builtin-node-catalog.js';
export { BUILTIN_NODE_DEFINITIONS } from './builtin-node-definitions.js';
