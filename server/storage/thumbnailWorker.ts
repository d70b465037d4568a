import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { type Dimensions, type ImageLimits, makeThumbnail } from './images.js';

// Background work at the lowest CPU priority (issue 11: an upload flood's accepted images must not
// slow other tenants' calls): on Linux a thread's nice value is its own, so when the CPUs are busy
// the node's event loop, the database and the other processes go first, and thumbnails take the
// time left over. (Elsewhere the call sets the whole process's priority: not done there.)
if (process.platform === 'linux') {
  try {
    os.setPriority(0, os.constants.priority.PRIORITY_LOW);
  } catch {
    // Not allowed here: thumbnails run at the node's priority.
  }
}

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
