import type { PublicWidgetSettingsDto } from '../../shared/src/types.js';
/** What the loader hands to the UI chunk, and the public settings both render. */

/** GET /api/widget-settings data (a type only: nothing of shared's schemas enters the bundle). */
export type PublicSettings = PublicWidgetSettingsDto;

/** A host-page command: `Parley('open')`, `Parley('identify', {...})`, `Parley('on', 'message', fn)`. */
export type Command = [string, ...unknown[]];

export type EventKind = 'load' | 'connect' | 'error';

export interface LoaderContext {
  /** The account's public widget key (data-widget). */
  key: string;
  /** The widget server's origin (from the script's src), e.g. https://chat.example.com. */
  base: string;
  settings: PublicSettings;
  /** The language the loader picked (lang.ts: forced by the owner, else the browser's). */
  lang?: string;
  /** The open shadow root the widget lives in. */
  root: ShadowRoot;
  /** The launcher bubble the loader already shows; the UI takes it over. */
  launcher: HTMLButtonElement;
  /** Commands queued before the UI was ready. */
  queue: Command[];
  /** Set by the UI: from now on commands go straight to it. */
  run?: (cmd: Command) => void;
  /** POST /api/widget/events for this page load; never throws. */
  report: (kind: EventKind, detail?: string) => void;
}
