/**
 * Pictures made to be misread (the first-use check must read them as the render's decoder does): polyglots whose
 * signature starts at byte 1 or whose body is another format, headers that lie about the size the bitstream decodes
 * to, pixel bombs, and files cut short. Each is declared as the type it pretends to be; every one must be refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { AssetContentType } from '../../functions/contract/assets.ts';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';

export interface HostileImage {
  name: string;
  type: AssetContentType;
  bytes: Buffer;
}

/** One frame of colour `color` at `size`, encoded by ffmpeg into `ext`'s format (`h264`: an Annex B stream). */
export function encoded(ext: 'png' | 'jpg' | 'webp' | 'h264', size: string, color = 'green'): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-image-'));
  try {
    const file = join(dir, `frame.${ext}`);
    const codec = ext === 'webp' ? ['-c:v', 'libwebp'] : ext === 'h264' ? ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'] : [];
    execFileSync(FFMPEG, ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=${color}:s=${size}`, '-frames:v', '1', ...codec, file]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pngChunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
};
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A valid PNG header of a width x height greyscale picture with a tiny IDAT: it would decode to width * height bytes. */
export function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  // The first rows' zeros: deflate makes megabytes of them a few hundred bytes.
  const idat = deflateSync(Buffer.alloc((width + 1) * 64));
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A WebP whose VP8X canvas says `canvas` x `canvas` around a bitstream of another size (the RIFF sizes consistent). */
export function webpCanvasLie(frame: Buffer, canvas: number): Buffer {
  // The simple file's first chunk (VP8 or VP8L) and what follows it.
  const body = frame.subarray(12);
  const vp8x = Buffer.alloc(18);
  vp8x.write('VP8X', 0, 'ascii');
  vp8x.writeUInt32LE(10, 4);
  vp8x.writeUIntLE(canvas - 1, 12, 3);
  vp8x.writeUIntLE(canvas - 1, 15, 3);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + vp8x.length + body.length, 4);
  riff.write('WEBP', 8, 'ascii');
  return Buffer.concat([riff, vp8x, body]);
}

/** A JPEG whose first frame header (an SOF0 in front of the real one) says `size` x `size`. */
export function jpegFrameLie(jpeg: Buffer, size: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, size >> 8, size & 0xff, size >> 8, size & 0xff, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([jpeg.subarray(0, 2), sof, jpeg.subarray(2)]);
}

/** The set: each refused by the check, whatever a header-only reader would say of it. */
export function hostileImages(): HostileImage[] {
  const h264 = encoded('h264', '8192x8192');
  const png = encoded('png', '64x64');
  const jpeg = encoded('jpg', '64x64');
  const webp = encoded('webp', '64x64');
  const bigJpeg = encoded('jpg', '5000x5000', 'white');
  const bigWebp = encoded('webp', '5000x5000', 'white');
  const noisyJpeg = encoded('jpg', '512x512', 'orange');
  const ihdr64 = Buffer.from([0, 0, 0, 64, 0, 0, 0, 64, 8, 2, 0, 0, 0]);
  return [
    // Signatures from byte 1: a prober would take them for what follows.
    {
      name: 'PNG signature with a wrong byte 0 and a 64x64 IHDR, over an 8192x8192 H.264 frame',
      type: 'image/png',
      bytes: Buffer.concat([Buffer.from([0]), PNG_SIGNATURE.subarray(1), pngChunk('IHDR', ihdr64), h264]),
    },
    { name: 'PNG signature, then an H.264 stream', type: 'image/png', bytes: Buffer.concat([PNG_SIGNATURE, h264]) },
    { name: 'JPEG signature from byte 1', type: 'image/jpeg', bytes: Buffer.concat([Buffer.from([0]), jpeg]) },
    { name: 'WebP declared, an H.264 stream inside RIFF/WEBP', type: 'image/webp', bytes: Buffer.concat([webp.subarray(0, 12), h264]) },
    // Headers that lie about what the bitstream decodes to.
    { name: 'WebP whose VP8X canvas says 100x100 around a 5000x5000 frame', type: 'image/webp', bytes: webpCanvasLie(bigWebp, 100) },
    { name: 'JPEG whose first frame header says 64x64 before a 5000x5000 frame', type: 'image/jpeg', bytes: jpegFrameLie(bigJpeg, 64) },
    // Pixel bombs: a few hundred bytes that would decode to gigabytes.
    { name: 'PNG of 8192x8192 in under 40 KB', type: 'image/png', bytes: pngBomb(8192, 8192) },
    { name: 'PNG of 20000x20000 in under 2 KB', type: 'image/png', bytes: pngBomb(20_000, 20_000) },
    // Cut short: the header is whole, the picture is not.
    { name: 'PNG cut after its header', type: 'image/png', bytes: png.subarray(0, 40) },
    { name: 'JPEG cut in half', type: 'image/jpeg', bytes: noisyJpeg.subarray(0, noisyJpeg.length >> 1) },
    { name: 'another format declared: a PNG as JPEG', type: 'image/jpeg', bytes: png },
  ];
}
