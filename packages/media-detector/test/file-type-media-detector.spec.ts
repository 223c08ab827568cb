import { expect } from 'chai';
import { FileTypeMediaDetector } from '@runload/media-detector';

const PNG_HEAD = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);

describe('FileTypeMediaDetector', () => {
  const detector = new FileTypeMediaDetector();

  it('names a PNG from its leading bytes, whatever the file is called', async () => {
    expect(await detector.detect(PNG_HEAD)).to.equal('image/png');
  });

  it('answers null for bytes no media format starts with', async () => {
    expect(await detector.detect(new TextEncoder().encode('just some text, not an image'))).to.equal(null);
  });
});
