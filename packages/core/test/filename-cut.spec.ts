/** A long filename is cut at 200 UTF-16 units, between characters: never half an emoji. */
import { expect } from 'chai';
import { sanitizeFilename } from '@runload/core';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('sanitizeFilename', () => {
  it('cuts before an emoji that would straddle the 200th unit', () => {
    const name = sanitizeFilename(`${'a'.repeat(199)}😀.png`);
    expect(name).to.equal('a'.repeat(199));
    expect(LONE_SURROGATE.test(name)).to.equal(false);
    expect(Buffer.from(name, 'utf8').toString('utf8')).to.equal(name);
  });

  it('keeps an emoji that ends exactly at the limit, and never splits a joined emoji', () => {
    expect(sanitizeFilename(`${'a'.repeat(198)}😀.png`)).to.equal(`${'a'.repeat(198)}😀`);
    const family = '👨‍👩‍👧';
    expect(sanitizeFilename(`${'a'.repeat(195)}${family}.png`)).to.equal('a'.repeat(195));
  });

  it('replaces a lone surrogate the client sent', () => {
    expect(sanitizeFilename('photo\ud83d.png')).to.equal('photo\ufffd.png');
  });
});
