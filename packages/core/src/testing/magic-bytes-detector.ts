import type { MediaTypeDetector } from '../ports/media-type-detector.js';

/**
 * A small detector for in-memory use and tests: the signatures of the common image, video and
 * audio formats. The server uses a full detector (file-type) instead.
 */
export class MagicBytesDetector implements MediaTypeDetector {
  async detect(head: Uint8Array): Promise<string | null> {
    const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
    const ascii = (start: number, text: string): boolean => b.subarray(start, start + text.length).toString('latin1') === text;
    if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png';
    if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
    if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
    if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
    if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return 'audio/wav';
    if (ascii(0, 'fLaC')) return 'audio/flac';
    if (ascii(0, 'OggS')) return 'audio/ogg';
    if (ascii(0, 'ID3') || (b.length >= 2 && b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0)) return 'audio/mpeg';
    if (ascii(4, 'ftyp')) return ascii(8, 'qt  ') ? 'video/quicktime' : 'video/mp4';
    if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return 'video/webm';
    return null;
  }
}
