import type { AuditLog, AuditPage } from '../../ports/audit-log.js';
import { pageSize } from './page-limit.js';

/** The audit trail of changes, newest first. */
export class AuditTrail {
  constructor(private readonly log: AuditLog) {}

  /** @throws CoreError INVALID_REQUEST for a bad limit or cursor */
  list(options: { limit?: number; cursor?: string | null }): Promise<AuditPage> {
    return this.log.list({ limit: pageSize(options.limit), after: options.cursor ?? null });
  }
}
