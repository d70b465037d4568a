/**
 * Issue 13's features, each a module of its own loaded by URL when first needed (build.mjs:
 * dist/chunks/<name>-<hash>.js), so the UI chunk a visitor downloads first stays as small as it was.
 */
import type * as Rating from './rating.js';
import type * as Transcript from './transcript.js';
import type * as Proactive from './proactive.js';
import type * as AiAnswer from './aiAnswer.js';
import type * as Refusals from './refusals.js';
import type * as Polling from './polling.js';

interface Modules {
  rating: typeof Rating;
  transcript: typeof Transcript;
  proactive: typeof Proactive;
  aiAnswer: typeof AiAnswer;
  refusals: typeof Refusals;
  polling: typeof Polling;
}

/** Replaced at build time with { name: 'chunks/<name>-<hash>.js' } (build.mjs). */
declare const __LAZY__: Record<keyof Modules, string>;

const loading: Partial<Record<keyof Modules, Promise<unknown>>> = {};

export function loadFeature<K extends keyof Modules>(base: string, name: K): Promise<Modules[K]> {
  loading[name] ??= import(/* @vite-ignore */ `${base}/widget/${__LAZY__[name]}`).catch((e: unknown) => {
    delete loading[name]; // a failed load may be retried later
    throw e;
  });
  return loading[name] as Promise<Modules[K]>;
}
