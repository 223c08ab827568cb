import type { RunloadPorts } from '@runload/core';

/** DI tokens the composition root adds to the core's port tokens. */
export const DATABASE = Symbol.for('runload.server.Database');
export const CONFIG = Symbol.for('runload.server.Config');
/** Every port, resolved together (the dispatcher needs them beside the API). */
export const PORTS = Symbol.for('runload.server.Ports');
export type PORTS = RunloadPorts;
