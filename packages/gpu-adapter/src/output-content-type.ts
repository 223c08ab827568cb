/** Content types of ComfyUI's output files, by extension (core video comes under `images`). */
const BY_EXTENSION: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', svg: 'image/svg+xml',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', mkv: 'video/x-matroska',
  wav: 'audio/wav', flac: 'audio/flac', mp3: 'audio/mpeg', ogg: 'audio/ogg', opus: 'audio/opus',
};

const GENERIC = 'application/octet-stream';

/** The extension decides; the server's header only for an extension runload does not know. */
export function outputContentType(filename: string, header: string | null): string {
  const known = BY_EXTENSION[filename.split('.').pop()?.toLowerCase() ?? ''];
  if (known) return known;
  const fromServer = header?.split(';')[0]?.trim().toLowerCase();
  return fromServer && fromServer.includes('/') ? fromServer : GENERIC;
}
