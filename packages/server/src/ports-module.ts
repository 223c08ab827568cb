/**
 * The ports by name and the API on them. Each field of `RunloadPorts` names its token; the adapter
 * modules bind the tokens. Resolving the API resolves every port, in the order below: the database
 * first, so it is the last part stopped.
 * @module
 */
import { ContainerModule } from 'inversify';
import {
  ACCOUNT_REPOSITORY,
  ADMIN_TOKEN_REPOSITORY,
  API_KEY_REPOSITORY,
  APP_VERSION_REPOSITORY,
  ASSET_REPOSITORY,
  AUDIT_LOG,
  BACKEND_REGISTRY,
  BLOB_STORE,
  CLOCK,
  createRunloadApi,
  EXECUTOR,
  GPU_LEDGER,
  ID_GENERATOR,
  IDEMPOTENCY_STORE,
  LIMITS_CONFIG,
  MEDIA_TYPE_DETECTOR,
  NAMED_LOCKS,
  NODE_CATALOG,
  PREVIEW_STORE,
  RATE_LIMITER,
  RUN_REPOSITORY,
  RUNLOAD_API,
  STREAM_SLOTS,
  USAGE_REPOSITORY,
  WEBHOOK_OUTBOX,
  WEBHOOK_SECRET_REPOSITORY,
  WEBHOOK_TRANSPORT,
  WORK_SIGNAL,
  type LimitsConfig,
  type RunloadPorts,
} from '@runload/core';
import { resolveNamed, type TokensOf } from './named.js';
import { PORTS } from './tokens.js';

export const PORT_TOKENS: TokensOf<RunloadPorts> = {
  accounts: ACCOUNT_REPOSITORY,
  apiKeys: API_KEY_REPOSITORY,
  appVersions: APP_VERSION_REPOSITORY,
  assets: ASSET_REPOSITORY,
  runs: RUN_REPOSITORY,
  blobs: BLOB_STORE,
  mediaTypes: MEDIA_TYPE_DETECTOR,
  limiter: RATE_LIMITER,
  gpuLedger: GPU_LEDGER,
  executor: EXECUTOR,
  nodeCatalog: NODE_CATALOG,
  workSignal: WORK_SIGNAL,
  clock: CLOCK,
  ids: ID_GENERATOR,
  idempotency: IDEMPOTENCY_STORE,
  webhookOutbox: WEBHOOK_OUTBOX,
  webhookSecrets: WEBHOOK_SECRET_REPOSITORY,
  webhookTransport: WEBHOOK_TRANSPORT,
  streamSlots: STREAM_SLOTS,
  previews: PREVIEW_STORE,
  backends: BACKEND_REGISTRY,
  adminTokens: ADMIN_TOKEN_REPOSITORY,
  auditLog: AUDIT_LOG,
  usage: USAGE_REPOSITORY,
  locks: NAMED_LOCKS,
};

export function portsModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RunloadPorts>(PORTS)
      .toDynamicValue((context) => resolveNamed<RunloadPorts>(context, PORT_TOKENS))
      .inSingletonScope();
    bind(RUNLOAD_API)
      .toResolvedValue((ports: RunloadPorts, limits: LimitsConfig) => createRunloadApi(ports, limits), [PORTS, LIMITS_CONFIG])
      .inSingletonScope();
  });
}
