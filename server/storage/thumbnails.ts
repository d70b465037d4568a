import { Worker } from 'node:worker_threads';
import { type Dimensions, type ImageLimits, THUMBNAIL_MAX_SIDE, thumbnailable } from './images.js';

type Reply = { id: number; out?: Uint8Array; error?: string };

/**
 * Makes thumbnails on one worker thread per node, one image at a time: the event loop keeps
 * serving while a large photo is decoded, and the memory it takes stays bounded. A worker that
 * dies (out of memory) fails its jobs and is started again on the next one.
 */
export class Thumbnailer {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (b: Buffer | undefined) => void; reject: (e: Error) => void }>();

  /** undefined when the image is its own thumbnail (small already). */
  async make(bytes: Buffer, ext: string, dims: Dimensions, limits: ImageLimits): Promise<Buffer | undefined> {
    if (Math.max(dims.width, dims.height) <= THUMBNAIL_MAX_SIDE || !thumbnailable(ext)) return undefined;
    const worker = this.start();
    const id = ++this.seq;
    const copy = new Uint8Array(bytes);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, bytes: copy, ext, dims, limits }, [copy.buffer]);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // Built server: the compiled .js beside this file; tests and tsx run the .ts source.
    const ts = import.meta.url.endsWith('.ts');
    const entry = new URL(`./thumbnailWorker.${ts ? 'ts' : 'js'}`, import.meta.url);
    const limits = { resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 64 } };
    const worker = ts
      ? new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`, { eval: true, ...limits })
      : new Worker(entry, limits);
    worker.unref();
    worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (r.error) p.reject(new Error(r.error));
      else p.resolve(r.out ? Buffer.from(r.out.buffer, r.out.byteOffset, r.out.byteLength) : undefined);
    });
    const fail = (e: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`thumbnail worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
