/**
 * Real baseline JPEG files for fake previews: mid-grey, 8 pixels high and 8 × `blocks` wide. Every
 * block has a DC difference of zero and no AC coefficient, so one Huffman code of one bit per
 * table encodes the whole scan; the width makes each step's preview a different file.
 * @module
 */

function segment(marker: number, body: Buffer | number[]): Buffer {
  const length = body.length + 2;
  return Buffer.concat([Buffer.from([0xff, marker, length >> 8, length & 0xff]), Buffer.from(body)]);
}

/** A Huffman table holding one symbol (0: DC category 0, or AC end-of-block) under the code `0`. */
const oneSymbolTable = (tableClass: number) => segment(0xc4, [tableClass << 4, 1, ...new Array<number>(15).fill(0), 0x00]);

/** Comment segments that bring a JPEG to about `bytes` (a real preview is tens of kilobytes). */
function padding(bytes: number): Buffer[] {
  const out: Buffer[] = [];
  for (let left = bytes; left > 4; left -= 65_537) out.push(segment(0xfe, Buffer.alloc(Math.min(left - 4, 65_533), 0x20)));
  return out;
}

/** `padTo`: the file is padded with comments to about this many bytes. */
export function greyJpeg(blocks: number, padTo = 0): Buffer {
  const width = 8 * Math.max(1, Math.min(blocks, 512));
  const n = width / 8;
  // Two zero bits per block (DC category 0, then end of block), the last byte padded with ones.
  const bits = '00'.repeat(n).padEnd(Math.ceil((2 * n) / 8) * 8, '1');
  const scan = Array.from({ length: bits.length / 8 }, (_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    ...padding(padTo - 160),
    segment(0xdb, [0x00, ...new Array<number>(64).fill(1)]),
    segment(0xc0, [8, 0, 8, width >> 8, width & 0xff, 1, 1, 0x11, 0]),
    oneSymbolTable(0),
    oneSymbolTable(1),
    segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    Buffer.from([...scan, 0xff, 0xd9]),
  ]);
}
