import { imageSize } from 'image-size';
import { HttpError } from '../errors.js';
import { decodeWebpRgba, encodeWebpRgba } from './webp.js';

/** The longest side of a thumbnail, in pixels (the console shows message images smaller). */
export const THUMBNAIL_MAX_SIDE = 480;

export interface ImageLimits {
  maxPixels: number;
  maxSide: number;
}

export interface Dimensions {
  width: number;
  height: number;
  /** EXIF orientation of a JPEG (1 to 8), when it has one. */
  orientation?: number | undefined;
}

export const imageTooLargeMessage = (limits: ImageLimits) =>
  `Images can be at most ${limits.maxSide} pixels on a side and ${+(limits.maxPixels / 1_000_000).toFixed(1)} megapixels`;
export const IMAGE_UNREADABLE = 'The image could not be read';

/**
 * Width and height read from the file's header, without decoding it: a small file may claim
 * a huge picture (a "pixel bomb") that would take gigabytes to draw. Above the limits: 422.
 */
export function checkDimensions(bytes: Buffer, limits: ImageLimits, field = 'image'): Dimensions {
  let dims: { width?: number; height?: number; orientation?: number };
  try {
    dims = imageSize(bytes);
  } catch {
    throw new HttpError(422, IMAGE_UNREADABLE, { [field]: [IMAGE_UNREADABLE] });
  }
  const { width, height } = dims;
  if (!width || !height) throw new HttpError(422, IMAGE_UNREADABLE, { [field]: [IMAGE_UNREADABLE] });
  if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels) {
    const message = imageTooLargeMessage(limits);
    throw new HttpError(422, message, { [field]: [message] });
  }
  return { width, height, orientation: dims.orientation };
}

interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Every image format the uploads accept gets a thumbnail of its own, in its own format. */
export const thumbnailable = (ext: string): boolean => ext === 'png' || ext === 'jpg' || ext === 'gif' || ext === 'webp';

/**
 * A thumbnail no side of which exceeds THUMBNAIL_MAX_SIDE, in the original's format, decoded
 * and encoded without native code: PNG and JPEG in pure JS (a JPEG turned upright per its EXIF
 * orientation), a GIF's first frame in pure JS (omggif, with the frame's own palette: an
 * animation's thumbnail is still), WebP through WebAssembly. undefined when the image is small
 * enough already.
 */
export async function makeThumbnail(bytes: Buffer, ext: string, dims: Dimensions, limits: ImageLimits): Promise<Buffer | undefined> {
  if (Math.max(dims.width, dims.height) <= THUMBNAIL_MAX_SIDE) return undefined;
  // The decoders are loaded at the first thumbnail, not at start.
  if (ext === 'png') {
    const { PNG } = await import('pngjs');
    const png = PNG.sync.read(bytes);
    const small = downscale({ width: png.width, height: png.height, data: png.data });
    const out = new PNG({ width: small.width, height: small.height });
    out.data = Buffer.from(small.data.buffer, small.data.byteOffset, small.data.byteLength);
    return PNG.sync.write(out);
  }
  if (ext === 'jpg') {
    const jpeg = (await import('jpeg-js')).default;
    const decoded = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: Math.ceil(limits.maxPixels / 1_000_000),
      // Decoding holds the components, then RGBA: well over 8 bytes a pixel at its peak.
      maxMemoryUsageInMB: Math.ceil((limits.maxPixels * 16) / (1024 * 1024)),
    });
    const small = orient(downscale({ width: decoded.width, height: decoded.height, data: decoded.data }), dims.orientation ?? 1);
    return jpeg.encode({ width: small.width, height: small.height, data: small.data }, 82).data;
  }
  if (ext === 'gif') return gifThumbnail(bytes, await import('omggif'));
  if (ext === 'webp') {
    const decoded = await decodeWebpRgba(bytes);
    if (decoded.width * decoded.height > limits.maxPixels) throw new Error('webp larger than its header said');
    return encodeWebpRgba(downscale(decoded), 80);
  }
  return undefined;
}

/** The first frame, downscaled, drawn with that frame's palette (nearest colour; transparency kept). */
function gifThumbnail(bytes: Buffer, { GifReader, GifWriter }: typeof import('omggif')): Buffer {
  const reader = new GifReader(bytes);
  const frame = reader.frameInfo(0);
  const rgba = new Uint8Array(reader.width * reader.height * 4);
  reader.decodeAndBlitFrameRGBA(0, rgba);
  const small = downscale({ width: reader.width, height: reader.height, data: rgba });
  const size = frame.palette_size;
  const paletteOffset = frame.palette_offset;
  if (size === null || paletteOffset === null) throw new Error('gif frame without a palette');
  const palette: number[] = [];
  for (let i = 0; i < size; i++) {
    const o = paletteOffset + i * 3;
    palette.push((bytes[o]! << 16) | (bytes[o + 1]! << 8) | bytes[o + 2]!);
  }
  const transparent = frame.transparent_index;
  const indices = new Uint8Array(small.width * small.height);
  const memo = new Map<number, number>();
  for (let p = 0; p < indices.length; p++) {
    const o = p * 4;
    if (transparent !== null && small.data[o + 3]! < 128) {
      indices[p] = transparent;
      continue;
    }
    const rgb = (small.data[o]! << 16) | (small.data[o + 1]! << 8) | small.data[o + 2]!;
    let best = memo.get(rgb);
    if (best === undefined) {
      let bestDistance = Number.POSITIVE_INFINITY;
      best = 0;
      for (let i = 0; i < size; i++) {
        if (i === transparent) continue;
        const c = palette[i]!;
        const dr = ((c >> 16) & 255) - small.data[o]!;
        const dg = ((c >> 8) & 255) - small.data[o + 1]!;
        const db = (c & 255) - small.data[o + 2]!;
        const d = dr * dr + dg * dg + db * db;
        if (d < bestDistance) {
          bestDistance = d;
          best = i;
        }
      }
      memo.set(rgb, best);
    }
    indices[p] = best;
  }
  // GIF palettes hold a power of two of colours, at least 2.
  let paletteSize = 2;
  while (paletteSize < size) paletteSize *= 2;
  while (palette.length < paletteSize) palette.push(0);
  const out = Buffer.alloc(small.width * small.height + paletteSize * 3 + 1024);
  const writer = new GifWriter(out, small.width, small.height, { palette });
  // omggif reads the indices by position: a typed array serves as well as an array.
  writer.addFrame(0, 0, small.width, small.height, indices as unknown as number[], transparent !== null ? { transparent } : {});
  return out.subarray(0, writer.end());
}

/** Area-average downscale to fit THUMBNAIL_MAX_SIDE (each output pixel averages its source block). */
function downscale(src: Rgba): Rgba {
  const scale = THUMBNAIL_MAX_SIDE / Math.max(src.width, src.height);
  const width = Math.max(1, Math.round(src.width * scale));
  const height = Math.max(1, Math.round(src.height * scale));
  const data = new Uint8Array(width * height * 4);
  const sums = new Float64Array(width * 4);
  const counts = new Float64Array(width);
  // Which output column each source column falls into (computed once).
  const colOf = new Uint32Array(src.width);
  for (let x = 0; x < src.width; x++) colOf[x] = Math.min(width - 1, Math.floor((x * width) / src.width));
  let sy = 0;
  for (let y = 0; y < height; y++) {
    const yEnd = Math.max(sy + 1, Math.min(src.height, Math.round(((y + 1) * src.height) / height)));
    sums.fill(0);
    counts.fill(0);
    for (; sy < yEnd; sy++) {
      let i = sy * src.width * 4;
      for (let x = 0; x < src.width; x++, i += 4) {
        const c = colOf[x]!;
        const o = c * 4;
        sums[o] = sums[o]! + src.data[i]!;
        sums[o + 1] = sums[o + 1]! + src.data[i + 1]!;
        sums[o + 2] = sums[o + 2]! + src.data[i + 2]!;
        sums[o + 3] = sums[o + 3]! + src.data[i + 3]!;
        counts[c] = counts[c]! + 1;
      }
    }
    for (let x = 0; x < width; x++) {
      const n = counts[x] || 1;
      const o = (y * width + x) * 4;
      for (let k = 0; k < 4; k++) data[o + k] = Math.round(sums[x * 4 + k]! / n);
    }
  }
  return { width, height, data };
}

/** The picture as browsers show it: EXIF orientations 2 to 8 flip and/or rotate it. */
function orient(src: Rgba, orientation: number): Rgba {
  if (orientation < 2 || orientation > 8) return src;
  const { width: W, height: H } = src;
  const swap = orientation >= 5;
  const width = swap ? H : W;
  const height = swap ? W : H;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2: sx = W - 1 - x; sy = y; break;
        case 3: sx = W - 1 - x; sy = H - 1 - y; break;
        case 4: sx = x; sy = H - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = H - 1 - x; break;
        case 7: sx = W - 1 - y; sy = H - 1 - x; break;
        default: sx = W - 1 - y; sy = x; break;
      }
      const s = (sy * W + sx) * 4;
      const o = (y * width + x) * 4;
      data[o] = src.data[s]!;
      data[o + 1] = src.data[s + 1]!;
      data[o + 2] = src.data[s + 2]!;
      data[o + 3] = src.data[s + 3]!;
    }
  }
  return { width, height, data };
}
