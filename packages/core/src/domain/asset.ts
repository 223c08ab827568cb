/** Assets: files a caller uploaded, or outputs of its runs. Bytes live in the blob store under their SHA-256. */
import type { MediaInputType } from './app-version.js';

export type MediaKind = 'image' | 'video' | 'audio';

/** Where an asset came from: a caller's upload or a run's output (they are kept for different times). */
export type AssetOrigin = 'upload' | 'output';

export interface Asset {
  readonly id: string;
  readonly accountId: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  /** Hex SHA-256 of the bytes; the blob store key. */
  readonly sha256: string;
  /**
   * Hex BLAKE3 of the same bytes (the Comfy API v2 names content by it), computed in the pass
   * that computes the SHA-256; null for bytes stored before it was kept, until the backfill.
   */
  readonly blake3: string | null;
  readonly createdAt: Date;
  readonly origin: AssetOrigin;
  /** When it stops existing for the API (retention); null keeps it until deleted. */
  readonly expiresAt: Date | null;
}

/** An expired asset is gone for the API, whether or not the sweep has removed it yet. */
export function isExpired(asset: Pick<Asset, 'expiresAt'>, now: Date): boolean {
  return asset.expiresAt !== null && asset.expiresAt.getTime() <= now.getTime();
}

/** The media kind of a content type, or null when it is not image, video or audio. */
export function mediaKindOf(contentType: string): MediaKind | null {
  const top = contentType.split('/')[0]?.toLowerCase();
  return top === 'image' || top === 'video' || top === 'audio' ? top : null;
}

export function mediaKindForInput(type: MediaInputType): MediaKind {
  return type === 'IMAGE' ? 'image' : type === 'VIDEO' ? 'video' : 'audio';
}

const MAX_FILENAME_LENGTH = 200;

/**
 * Reduces a client-supplied filename to a safe base name: no directories, no control
 * characters, no leading dots; never empty.
 */
export function sanitizeFilename(raw: string | null | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = cutAtCharacter(
    base
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd') // lone surrogates
      .normalize('NFC')
      .replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '_')
      .replace(/^[.\s]+/, '')
      .trim(),
    MAX_FILENAME_LENGTH,
  );
  return cleaned.length > 0 ? cleaned : 'upload';
}

/** At most `max` UTF-16 units of `text`, cut between characters (never inside an emoji or a surrogate pair). */
function cutAtCharacter(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  // A grapheme is short: a little more than `max` units is enough to see where the last one ends.
  for (const { segment, index } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text.slice(0, max + 32))) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
