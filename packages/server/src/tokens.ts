/** DI tokens the composition root adds to the core's port tokens and the adapters' own. */
export const CONFIG = Symbol.for('runload.server.Config');
/** Every port by its name in `RunloadPorts`, for the API and the dispatcher. */
export const PORTS = Symbol.for('runload.server.Ports');
/** This process's one name on claims, leases and maintenance (see `instanceOwner`). */
export const INSTANCE_OWNER = Symbol.for('runload.server.InstanceOwner');
export const DISPATCHER = Symbol.for('runload.server.Dispatcher');
/** The webhook worker and the purges (a serving instance only). */
export const INTEGRATIONS = Symbol.for('runload.server.Integrations');
/** The retention sweep of expired assets and unreferenced bytes (a serving instance only). */
export const RETENTION_SWEEP = Symbol.for('runload.server.RetentionSweep');
/** The pool as data: the registry followed by this instance's executor (a serving instance only). */
export const POOL_FOLLOWER = Symbol.for('runload.server.PoolFollower');
