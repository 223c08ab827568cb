/** Decides a file's content type from its bytes, never from its name or declared type. */
export interface MediaTypeDetector {
  /** The MIME type the leading bytes show (e.g. `image/png`), or null when unknown. */
  detect(head: Uint8Array): Promise<string | null>;
}

export const MEDIA_TYPE_DETECTOR = Symbol.for('runload.core.MediaTypeDetector');
