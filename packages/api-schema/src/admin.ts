/** The admin API's resources: what a billing site or a support tool reads and sends. */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type, type Static } from '@sinclair/typebox';
import { AppSummary, AppVersion } from './app.js';
import { NextCursor, Nullable, Timestamp, Uuid } from './primitives.js';
import { MAX_PAGE_SIZE } from './requests.js';
import { Run, RunStatus } from './run.js';

export const AdminTier = Type.Object(
  {
    name: Type.String({ description: 'The tier name accounts are put on: the four defaults and those the limits file adds.' }),
    runs_per_minute: Type.Number(),
    runs_per_hour: Type.Number(),
    gpu_seconds_per_month: Type.Number(),
    workflows: Type.Boolean({ description: 'Whether accounts of this tier may submit raw workflow graphs.' }),
  },
  { additionalProperties: false },
);
export type AdminTier = Static<typeof AdminTier>;

export const TierList = Type.Object({ tiers: Type.Array(AdminTier) }, { additionalProperties: false });
export type TierList = Static<typeof TierList>;

const limit = Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: `Page size, 1 to ${MAX_PAGE_SIZE} (default 20).` }));
const cursor = Type.Optional(Type.String({ description: 'The `next_cursor` of the previous page.' }));
const ACCOUNT_STATUS = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);

export const AdminAccount = Type.Object(
  { account_id: Uuid, name: Type.String(), tier: Type.String(), status: ACCOUNT_STATUS, created_at: Timestamp },
  { additionalProperties: false },
);
export type AdminAccount = Static<typeof AdminAccount>;

export const AdminAccountDetail = Type.Object(
  {
    ...AdminAccount.properties,
    gpu_seconds_used: Type.Number({ description: 'GPU-seconds charged this calendar month (UTC).' }),
    gpu_seconds_quota: Type.Number(),
    quota_resets_at: Timestamp,
    runs_queued: Type.Integer({ minimum: 0 }),
    runs_running: Type.Integer({ minimum: 0, description: 'Running or being canceled.' }),
  },
  { additionalProperties: false },
);
export type AdminAccountDetail = Static<typeof AdminAccountDetail>;

export const AdminAccountList = Type.Object({ accounts: Type.Array(AdminAccount), next_cursor: NextCursor }, { additionalProperties: false });
export type AdminAccountList = Static<typeof AdminAccountList>;

export const AdminAccountQuery = Type.Object({ limit, cursor, tier: Type.Optional(Type.String()), status: Type.Optional(ACCOUNT_STATUS) });

export const CreateAccountBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), tier: Type.String({ description: 'A tier of `GET /api/v1/admin/tiers`.' }) },
  { additionalProperties: false, examples: [{ name: 'Ada Lovelace', tier: 'starter' }] },
);
export type CreateAccountBody = Static<typeof CreateAccountBody>;

export const UpdateAccountBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), tier: Type.Optional(Type.String()), status: Type.Optional(ACCOUNT_STATUS) },
  { additionalProperties: false, description: 'Takes effect on every instance within a second.', examples: [{ tier: 'plus' }, { status: 'suspended' }] },
);
export type UpdateAccountBody = Static<typeof UpdateAccountBody>;

export const CreateKeyBody = Type.Object({ name: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false, examples: [{ name: 'billing site' }] });

export const IssuedKey = Type.Object(
  {
    key_id: Uuid,
    api_key: Type.String({ description: 'The key `rl_<prefix>_<secret>`: shown this once, never again.' }),
    account_id: Uuid,
    prefix: Type.String(),
    name: Nullable(Type.String()),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export type IssuedKey = Static<typeof IssuedKey>;

export const AdminKey = Type.Object(
  { key_id: Uuid, prefix: Type.String(), name: Nullable(Type.String()), created_at: Timestamp, last_used_at: Nullable(Timestamp), revoked_at: Nullable(Timestamp) },
  { additionalProperties: false },
);
export type AdminKey = Static<typeof AdminKey>;

export const AdminKeyList = Type.Object({ keys: Type.Array(AdminKey) }, { additionalProperties: false });
export type AdminKeyList = Static<typeof AdminKeyList>;

/** A workflow in API format that any ComfyUI server runs: a blank 512×512 image, saved. */
const EXAMPLE_WORKFLOW = {
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'runload' } },
};

export const PublishAppBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    workflow: Type.Record(Type.String(), Type.Unknown(), { description: 'A ComfyUI workflow in API format ("Export (API)").', examples: [EXAMPLE_WORKFLOW] }),
    app_id: Type.Optional(Type.String({ description: 'Add a version to this app; a new app when absent.' })),
    expose: Type.Optional(Type.Array(Type.String(), { description: 'Only these input keys; every literal widget value when absent.' })),
  },
  { additionalProperties: false, examples: [{ name: 'Blank image', workflow: EXAMPLE_WORKFLOW, expose: ['1:width', '1:height'] }] },
);
export type PublishAppBody = Static<typeof PublishAppBody>;

export const AdminAppVersion = Type.Object({ ...AppVersion.properties, deleted: Type.Boolean() }, { additionalProperties: false });
export type AdminAppVersion = Static<typeof AdminAppVersion>;

export const AdminAppSummary = Type.Object({ ...AppSummary.properties, deleted: Type.Boolean() }, { additionalProperties: false });
export type AdminAppSummary = Static<typeof AdminAppSummary>;

export const AdminAppList = Type.Object({ apps: Type.Array(AdminAppSummary), next_cursor: NextCursor }, { additionalProperties: false });
export type AdminAppList = Static<typeof AdminAppList>;

export const AdminAppQuery = Type.Object({ limit, cursor, include_deleted: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) });

export const AdminRun = Type.Object({ ...Run.properties, account_id: Uuid }, { additionalProperties: false });
export type AdminRun = Static<typeof AdminRun>;

export const AdminRunList = Type.Object({ runs: Type.Array(AdminRun), next_cursor: NextCursor }, { additionalProperties: false });
export type AdminRunList = Static<typeof AdminRunList>;

export const AdminRunQuery = Type.Object({ limit, cursor, account_id: Type.Optional(Type.String()), status: Type.Optional(RunStatus) });

export const AccountUsage = Type.Object(
  {
    account_id: Uuid,
    name: Type.String(),
    tier: Type.String(),
    gpu_seconds: Type.Number({ description: 'GPU-seconds charged in the month.' }),
    runs: Type.Object(
      { succeeded: Type.Integer(), failed: Type.Integer(), canceled: Type.Integer(), expired: Type.Integer() },
      { additionalProperties: false, description: 'Runs that ended in the month, by how.' },
    ),
  },
  { additionalProperties: false },
);
export type AccountUsage = Static<typeof AccountUsage>;

export const UsageReport = Type.Object(
  { month: Type.String({ pattern: '^\\d{4}-\\d{2}$' }), accounts: Type.Array(AccountUsage), next_cursor: NextCursor },
  { additionalProperties: false },
);
export type UsageReport = Static<typeof UsageReport>;

export const UsageQuery = Type.Object({ month: Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'A calendar month (UTC), `YYYY-MM`.', examples: ['2026-03'] }), limit, cursor });

/** The CSV header of `GET /api/v1/admin/usage` with `Accept: text/csv`. */
export const USAGE_CSV_HEADER = 'account_id,name,tier,gpu_seconds,succeeded,failed,canceled,expired';

export const AuditEntry = Type.Object(
  {
    at: Timestamp,
    actor: Type.String({ description: '`cli` or `token:<admin token id>`.' }),
    action: Type.String({ description: '`account.create`, `key.revoke`, `app.publish`…' }),
    target: Type.String({ description: 'The id of what changed.' }),
    request_id: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditList = Type.Object({ entries: Type.Array(AuditEntry), next_cursor: NextCursor }, { additionalProperties: false });
export type AuditList = Static<typeof AuditList>;
