import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import decodeWebp, { init as initDecoder } from '@jsquash/webp/decode.js';
import encodeWebp, { init as initEncoder } from '@jsquash/webp/encode.js';

/**
 * WebP through libwebp compiled to WebAssembly (@jsquash/webp): no native build, the same on
 * every platform. The codecs are compiled once per thread, on first use (the thumbnail worker).
 */
let ready: Promise<void> | undefined;

function load(): Promise<void> {
  ready ??= (async () => {
    const dir = new URL('./codec/', `file://${createRequire(import.meta.url).resolve('@jsquash/webp/package.json')}`);
    const compile = async (file: string) => WebAssembly.compile(await fs.readFile(new URL(file, dir)));
    const [dec, enc] = await Promise.all([compile('dec/webp_dec.wasm'), compile('enc/webp_enc.wasm')]);
    await initDecoder(dec);
    await initEncoder(enc);
  })();
  return ready;
}

export async function decodeWebpRgba(bytes: Buffer): Promise<{ width: number; height: number; data: Uint8Array }> {
  await load();
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const img = await decodeWebp(copy);
  return { width: img.width, height: img.height, data: new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength) };
}

export async function encodeWebpRgba(img: { width: number; height: number; data: Uint8Array }, quality: number): Promise<Buffer> {
  await load();
  const data = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  const out = await encodeWebp({ data, width: img.width, height: img.height, colorSpace: 'srgb' } as ImageData, { quality });
  return Buffer.from(out);
}
