/**
 * ComfyUI's binary WebSocket frames: a big-endian uint32 event type, then its payload. Type 1
 * is a preview image (uint32 format, 1 JPEG or 2 PNG, then the image), sent to clients that did
 * not ask for metadata; type 4 is a preview with metadata (uint32 length, a JSON object naming
 * `prompt_id`, `node_id` and `image_type`, then the image), sent to those that did. Other types
 * (progress text) carry no preview.
 * @module
 */
import type { PreviewContentType } from '@runload/core';

export type PreviewFrame =
  | {
      readonly kind: 'preview';
      /** Type 4 names its prompt; type 1 belongs to whatever the server is executing. */
      readonly promptId: string | null;
      readonly nodeId: string | null;
      readonly contentType: PreviewContentType;
      readonly bytes: Uint8Array;
    }
  | { readonly kind: 'other' }
  | { readonly kind: 'malformed'; readonly reason: string };

const PREVIEW_IMAGE = 1;
const PREVIEW_IMAGE_WITH_METADATA = 4;
const FORMATS: Readonly<Record<number, PreviewContentType>> = { 1: 'image/jpeg', 2: 'image/png' };

const malformed = (reason: string): PreviewFrame => ({ kind: 'malformed', reason });

export function parsePreviewFrame(frame: Buffer): PreviewFrame {
  if (frame.length < 4) return malformed(`a frame of ${frame.length} bytes has no event type`);
  const type = frame.readUInt32BE(0);
  if (type !== PREVIEW_IMAGE && type !== PREVIEW_IMAGE_WITH_METADATA) return { kind: 'other' };
  if (frame.length < 8) return malformed(`a preview frame of ${frame.length} bytes`);
  if (type === PREVIEW_IMAGE) {
    const contentType = FORMATS[frame.readUInt32BE(4)];
    if (!contentType) return malformed(`unknown preview image format ${frame.readUInt32BE(4)}`);
    return image(null, null, contentType, frame.subarray(8));
  }
  const metadataLength = frame.readUInt32BE(4);
  if (8 + metadataLength > frame.length) return malformed(`preview metadata of ${metadataLength} bytes in a frame of ${frame.length}`);
  let metadata: unknown;
  try {
    metadata = JSON.parse(frame.subarray(8, 8 + metadataLength).toString('utf8'));
  } catch {
    return malformed('preview metadata that is not JSON');
  }
  if (!metadata || typeof metadata !== 'object') return malformed('preview metadata that is not an object');
  const m = metadata as Record<string, unknown>;
  const contentType = m['image_type'] === 'image/jpeg' || m['image_type'] === 'image/png' ? m['image_type'] : null;
  if (!contentType) return malformed(`unknown preview image type ${JSON.stringify(m['image_type'])}`);
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  // A subgraph's inner node is shown on its display node: the one a user sees in the workflow.
  return image(text(m['prompt_id']), text(m['display_node_id']) ?? text(m['node_id']), contentType, frame.subarray(8 + metadataLength));
}

const MAGIC: Readonly<Record<PreviewContentType, readonly number[]>> = { 'image/jpeg': [0xff, 0xd8, 0xff], 'image/png': [0x89, 0x50, 0x4e, 0x47] };

/** The image must be what the frame says it is: it is served under that content type. */
function image(promptId: string | null, nodeId: string | null, contentType: PreviewContentType, bytes: Uint8Array): PreviewFrame {
  const magic = MAGIC[contentType];
  if (bytes.length <= magic.length || magic.some((b, i) => bytes[i] !== b)) return malformed(`a preview that is not ${contentType}`);
  return { kind: 'preview', promptId, nodeId, contentType, bytes };
}
