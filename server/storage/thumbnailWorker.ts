import { parentPort } from 'node:worker_threads';
import { type Dimensions, type ImageLimits, makeThumbnail } from './images.js';

/** Runs makeThumbnail off the main thread: decoding a large photo in JS takes seconds. */
interface Job {
  id: number;
  bytes: Uint8Array;
  ext: string;
  dims: Dimensions;
  limits: ImageLimits;
}

parentPort?.on('message', async (job: Job) => {
  try {
    const out = await makeThumbnail(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength), job.ext, job.dims, job.limits);
    const copy = out ? new Uint8Array(out) : undefined;
    parentPort?.postMessage({ id: job.id, out: copy }, copy ? [copy.buffer] : []);
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: (e as Error).message });
  }
});
