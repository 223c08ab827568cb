/**
 * The audit trail: one entry per change an operator made, through the admin API or the CLI. An
 * entry names who, what and on which id; never a secret.
 * @module
 */

/** Who makes a change: `cli`, or `token:<admin token id>` with the request that carried it. */
export interface ChangeAuthor {
  readonly actor: string;
  readonly requestId: string | null;
}

export const CLI_AUTHOR: ChangeAuthor = { actor: 'cli', requestId: null };

export function tokenAuthor(tokenId: string, requestId: string): ChangeAuthor {
  return { actor: `token:${tokenId}`, requestId };
}

export interface AuditEntry {
  readonly id: string;
  readonly at: Date;
  /** `cli` or `token:<admin token id>`. */
  readonly actor: string;
  /** `<thing>.<verb>`: `account.create`, `key.revoke`, `backend.drain`… */
  readonly action: string;
  /** The id of what changed. */
  readonly target: string;
  readonly requestId: string | null;
}

export function auditEntry(author: ChangeAuthor, action: string, target: string, at: Date, id: string): AuditEntry {
  return { id, at, actor: author.actor, action, target, requestId: author.requestId };
}
