import { create } from 'zustand';

/** Toast notifications (SPEC.md section 9: 320 px wide, stacked, 300 ms collapse). */
export type ToastKind = 'success' | 'error' | 'info';
export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  /** True while the 300 ms collapse animation runs before removal. */
  leaving: boolean;
}

export const TOAST_DURATION_MS = 5000;
export const TOAST_COLLAPSE_MS = 300;

interface ToastState {
  toasts: Toast[];
  show: (message: string, kind?: ToastKind, durationMs?: number) => number;
  dismiss: (id: number) => void;
}

let nextId = 1;

export const useToasts = create<ToastState>((set, get) => ({
  toasts: [],
  show: (message, kind = 'info', durationMs = TOAST_DURATION_MS) => {
    const id = nextId++;
    set({ toasts: [...get().toasts, { id, kind, message, leaving: false }] });
    if (durationMs > 0) setTimeout(() => get().dismiss(id), durationMs);
    return id;
  },
  dismiss: (id) => {
    const t = get().toasts.find((x) => x.id === id);
    if (!t || t.leaving) return;
    set({ toasts: get().toasts.map((x) => (x.id === id ? { ...x, leaving: true } : x)) });
    setTimeout(() => set({ toasts: get().toasts.filter((x) => x.id !== id) }), TOAST_COLLAPSE_MS);
  },
}));

/** Shorthands usable outside React. */
export const toast = {
  success: (m: string) => useToasts.getState().show(m, 'success'),
  error: (m: string) => useToasts.getState().show(m, 'error'),
  info: (m: string) => useToasts.getState().show(m, 'info'),
};
