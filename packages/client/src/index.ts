export { RunloadClient, isTerminal, type RunloadClientOptions, type RetryOptions, type CreateRunOptions, type WaitOptions, type PageOptions, type UploadSource, type RunPreview } from './client.js';
export { RunloadError, type RunloadErrorCode } from './errors.js';
export type { Account, AppList, AppSummary, AppVersion, AppInput, Asset, AssetList, CreatedRun, Run, RunList, RunStatus, WebhookEvent } from '@runload/api-schema';
export type { RunPreviewEvent } from '@runload/api-schema';
export { RunloadAdminClient, type RunloadAdminClientOptions, type AccountChange, type PublishApp } from './admin-client.js';
export type {
  AdminAccount,
  AdminAccountDetail,
  AdminAccountList,
  AdminAppList,
  AdminAppSummary,
  AdminAppVersion,
  AdminKey,
  AdminKeyList,
  AdminRun,
  AdminRunList,
  AdminTier,
  AccountUsage,
  AuditEntry,
  AuditList,
  IssuedKey,
  TierList,
  UsageReport,
} from '@runload/api-schema';
export type { AddBackendBody, Backend, BackendList, ChangeBackendBody, PoolReport, RegisterBackendBody } from '@runload/api-schema';
