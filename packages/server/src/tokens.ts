/** DI tokens the composition root adds to the core's port tokens. */
export const DATABASE = Symbol.for('runload.server.Database');
export const CONFIG = Symbol.for('runload.server.Config');
