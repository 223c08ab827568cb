/** ComfyUI's binary frames read as previews: both layouts, and every way a frame can be wrong. */
import { expect } from 'chai';
import { greyJpeg, makePng } from '@runload/fake-comfyui';
import { parsePreviewFrame } from '../src/preview-frame.js';

const JPEG = greyJpeg(2);
const PNG = makePng(2, 2, () => [1, 2, 3, 255]);
const u32 = (...values: number[]) => Buffer.concat(values.map((v) => Buffer.from([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255])));
const withMetadata = (metadata: unknown, image: Buffer) => {
  const json = Buffer.from(JSON.stringify(metadata));
  return Buffer.concat([u32(4, json.length), json, image]);
};
const META = { node_id: '12', prompt_id: 'p-1', display_node_id: '12', parent_node_id: null, real_node_id: '12', image_type: 'image/jpeg' };

describe('ComfyUI preview frames', () => {
  it('reads a plain preview (type 1) as JPEG or PNG, naming no prompt', () => {
    expect(parsePreviewFrame(Buffer.concat([u32(1, 1), JPEG]))).to.deep.equal({ kind: 'preview', promptId: null, nodeId: null, contentType: 'image/jpeg', bytes: JPEG });
    expect(parsePreviewFrame(Buffer.concat([u32(1, 2), PNG]))).to.deep.include({ kind: 'preview', contentType: 'image/png' });
  });

  it('reads a preview with metadata (type 4): its prompt, its node as displayed, its type', () => {
    expect(parsePreviewFrame(withMetadata(META, JPEG))).to.deep.equal({ kind: 'preview', promptId: 'p-1', nodeId: '12', contentType: 'image/jpeg', bytes: JPEG });
    const inner = parsePreviewFrame(withMetadata({ ...META, node_id: '57:3', display_node_id: '57', image_type: 'image/png' }, PNG));
    expect(inner).to.deep.include({ nodeId: '57', contentType: 'image/png' });
  });

  it('passes over frames that are not previews (progress text)', () => {
    expect(parsePreviewFrame(Buffer.concat([u32(3, 2), Buffer.from('12hello')]))).to.deep.equal({ kind: 'other' });
  });

  it('calls malformed every frame that cannot be a preview, without throwing', () => {
    const cases: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['a type alone', u32(1)],
      ['an unknown format', Buffer.concat([u32(1, 7), JPEG])],
      ['no image', u32(1, 1)],
      ['bytes that are not the format named', Buffer.concat([u32(1, 1), PNG])],
      ['metadata longer than the frame', Buffer.concat([u32(4, 9999), Buffer.from('{}')])],
      ['metadata that is not JSON', Buffer.concat([u32(4, 3), Buffer.from('{{{'), JPEG])],
      ['metadata that is not an object', withMetadata(7, JPEG)],
      ['an unknown image type', withMetadata({ ...META, image_type: 'image/webp' }, JPEG)],
    ];
    for (const [what, frame] of cases) expect(parsePreviewFrame(frame).kind, what).to.equal('malformed');
  });
});
