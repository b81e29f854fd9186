/**
 * Visited pages shown as tags above the main area (vue-element-admin "tags view"). Closing a
 * tag also drops its kept-alive page (see keep-alive/KeepAliveOutlet.tsx). The dashboard tag is
 * fixed.
 */
import { create } from 'zustand';
import { DASHBOARD_ROUTE } from '@/shared/routing';

export interface TagView {
  path: string;
  /** Route title ('router.*' keys are translated when shown). */
  title: string;
  keepAlive: boolean;
  /** Cannot be closed. */
  affix: boolean;
}

const AFFIX: TagView[] = [
  { path: DASHBOARD_ROUTE.path, title: DASHBOARD_ROUTE.title, keepAlive: false, affix: true },
];

interface TagsState {
  views: TagView[];
  /** Add a visited page, or refresh its title. */
  visit: (view: Omit<TagView, 'affix'>) => void;
  close: (path: string) => void;
  closeOthers: (path: string) => void;
  closeAll: () => void;
}

/** Zustand store of the visited-page tags. */
export const useTags = create<TagsState>((set) => ({
  views: AFFIX,
  visit: (view) =>
    set((s) => {
      const existing = s.views.find((v) => v.path === view.path);
      if (existing) {
        if (existing.title === view.title && existing.keepAlive === view.keepAlive) return s;
        return { views: s.views.map((v) => (v.path === view.path ? { ...v, ...view } : v)) };
      }
      return { views: [...s.views, { ...view, affix: false }] };
    }),
  close: (path) => set((s) => ({ views: s.views.filter((v) => v.affix || v.path !== path) })),
  closeOthers: (path) => set((s) => ({ views: s.views.filter((v) => v.affix || v.path === path) })),
  closeAll: () => set((s) => ({ views: s.views.filter((v) => v.affix) })),
}));
