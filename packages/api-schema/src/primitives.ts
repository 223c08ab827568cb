/** Small building blocks every resource schema shares. */
// Named here so that declaration files can spell TypeBox's symbol-keyed types.
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type, type TSchema } from '@sinclair/typebox';

/** A value or JSON null: fields not yet known are null (runs, assets). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });

/** ISO 8601 UTC with milliseconds, e.g. `2026-11-22T08:00:00.000Z`. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });

/** The opaque cursor of the next page, or null on the last page. */
export const NextCursor = Nullable(Type.String({ description: 'Pass as `cursor` to read the next page; null on the last page.' }));
