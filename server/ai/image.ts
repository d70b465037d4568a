import type { UploadedImage } from '../plugins/uploads.js';

/** What the assistant can truly tell about an image without a vision model: type, size, dimensions. */
export interface ImageFacts {
  type: string;
  bytes: number;
  width: number | undefined;
  height: number | undefined;
}

function dimensions(b: Buffer, mime: string): [number, number] | undefined {
  try {
    if (mime === 'image/png' && b.length >= 24) return [b.readUInt32BE(16), b.readUInt32BE(20)];
    if (mime === 'image/gif' && b.length >= 10) return [b.readUInt16LE(6), b.readUInt16LE(8)];
    if (mime === 'image/webp' && b.length >= 30) {
      const chunk = b.toString('ascii', 12, 16);
      if (chunk === 'VP8 ') return [b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff];
      if (chunk === 'VP8L') {
        const bits = b.readUInt32LE(21);
        return [(bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1];
      }
      if (chunk === 'VP8X') return [b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1];
    }
    if (mime === 'image/jpeg') {
      // Walk the segments to the first start-of-frame marker, which holds the size.
      let i = 2;
      while (i + 9 < b.length) {
        if (b[i] !== 0xff) return undefined;
        const marker = b[i + 1]!;
        const len = b.readUInt16BE(i + 2);
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          return [b.readUInt16BE(i + 7), b.readUInt16BE(i + 5)];
        }
        i += 2 + len;
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export function imageFacts(image: UploadedImage): ImageFacts {
  const dims = dimensions(image.bytes, image.mime);
  return { type: image.ext.toUpperCase(), bytes: image.bytes.length, width: dims?.[0], height: dims?.[1] };
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function describeImage(f: ImageFacts): string {
  const dims = f.width && f.height ? `, ${f.width}×${f.height} pixels` : '';
  return `I received your image (${f.type}${dims}, ${size(f.bytes)}). I can't see what is in pictures, so please tell me in words what you need.`;
}
