import { fileTypeFromBuffer } from 'file-type';
import type { MediaTypeDetector } from '@runload/core';

/** Decides a file's type from its leading bytes with `file-type` (magic numbers, not names). */
export class FileTypeMediaDetector implements MediaTypeDetector {
  async detect(head: Uint8Array): Promise<string | null> {
    const found = await fileTypeFromBuffer(head);
    return found?.mime ?? null;
  }
}
