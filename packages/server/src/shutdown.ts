/**
 * Shutdown, derived from the modules: each registered the stop of what it started, when it started
 * it, so running the registrations backwards stops each part before the parts it uses (the HTTP
 * server first, the database last). Only what was started is stopped; a part that fails to stop
 * does not keep the others open.
 * @module
 */
import type { Container } from 'inversify';
import { TEARDOWN, type Teardown } from '@runload/core';

export async function shutdown(container: Container): Promise<void> {
  try {
    await container.get<Teardown>(TEARDOWN).run();
  } finally {
    // Nothing may be resolved from a stopped container.
    await container.unbindAll();
  }
}
