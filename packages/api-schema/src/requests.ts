/** Request bodies and query strings: what the HTTP adapter validates before calling the core. */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type, type Static } from '@sinclair/typebox';
import { WebhookEvent } from './run.js';

/** The largest page a list endpoint returns. */
export const MAX_PAGE_SIZE = 100;

const inputs = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Values keyed `<nodeId>:<widgetName>` (`GET /api/v1/apps/{appVersionId}` lists them, typed); inputs left out keep their published values, so `{}` is valid.',
  examples: [{}, { '1:image': '6f1c2a5e-3b7d-4c8e-9a10-2b3c4d5e6f70', '2:blur_radius': 8 }],
});
const webhookFields = {
  webhook: Type.Optional(Type.String({ description: 'An http(s) URL that receives the run\'s events, signed (Standard Webhooks).' })),
  webhook_events: Type.Optional(Type.Array(WebhookEvent, { description: 'Default: the four terminal events.' })),
};

/** `POST /api/v1/apps/{appVersionId}`. Unknown fields are ignored. */
export const AppRunBody = Type.Object({ inputs, ...webhookFields }, { examples: [{ inputs: {} }] });
export type AppRunBody = Static<typeof AppRunBody>;

/** The example's id stands for one the reader reads from `GET /api/v1/apps`. */
export const EXAMPLE_APP_VERSION_ID = '00000000-0000-4000-8000-000000000000';

/** `POST /api/v1/runs`. Unknown fields are ignored. */
export const RunBody = Type.Object(
  {
    app_version_id: Type.String({ minLength: 1, description: 'The app version to run: an `app_version_id` from `GET /api/v1/apps`.' }),
    inputs,
    ...webhookFields,
  },
  { examples: [{ app_version_id: EXAMPLE_APP_VERSION_ID, inputs: {} }] },
);
export type RunBody = Static<typeof RunBody>;

const limit = Type.Optional(
  Type.String({ pattern: '^[0-9]{1,3}$', description: `Page size, 1 to ${MAX_PAGE_SIZE} (default 20).`, examples: ['20'] }),
);
const cursor = Type.Optional(Type.String({ description: 'The `next_cursor` of the previous page.' }));

export const PageQuery = Type.Object({ limit, cursor });
export type PageQuery = Static<typeof PageQuery>;

export const AssetListQuery = Type.Object({
  limit,
  cursor,
  kind: Type.Optional(Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio')])),
  origin: Type.Optional(Type.Union([Type.Literal('upload'), Type.Literal('output')])),
});
export type AssetListQuery = Static<typeof AssetListQuery>;

export const UploadBody = Type.Object(
  { file: Type.String({ format: 'binary', description: 'One image, video or audio file.' }) },
  { required: ['file'] },
);
