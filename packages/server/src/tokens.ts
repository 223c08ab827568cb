/** DI tokens the composition root adds to the core's port tokens and the adapters' own. */
export const CONFIG = Symbol.for('runload.server.Config');
/** Every port by name, for the dispatcher beside the API. */
export const PORTS = Symbol.for('runload.server.Ports');
export const DISPATCHER = Symbol.for('runload.server.Dispatcher');
export const RUNTIME = Symbol.for('runload.server.Runtime');
/** The webhook worker and the purges (a serving instance only). */
export const INTEGRATIONS = Symbol.for('runload.server.Integrations');
/** The retention sweep of expired assets and unreferenced bytes (a serving instance only). */
export const RETENTION_SWEEP = Symbol.for('runload.server.RetentionSweep');
/** The pool as data: the registry followed by this instance's executor (a serving instance only). */
export const POOL_FOLLOWER = Symbol.for('runload.server.PoolFollower');
