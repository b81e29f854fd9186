/**
 * Frame UI state (spec §3, §4): sidebar opened/closed (persisted in the `sidebarStatus` cookie,
 * '1' opened, '0' closed; opened when absent) and the device type (mobile below 992 px).
 */
import { create } from 'zustand';
import { readCookie, writeCookie } from '@/shared/storage/cookies';
import { CookieKey } from '@/shared/storage/keys';

export type Device = 'desktop' | 'mobile';

interface FrameState {
  sidebarOpened: boolean;
  /** Skip the slide animation (closing because the window became narrow). */
  withoutAnimation: boolean;
  device: Device;
  toggleSidebar: () => void;
  closeSidebar: (withoutAnimation?: boolean) => void;
  setDevice: (device: Device) => void;
}

function initialOpened(): boolean {
  const stored = readCookie(CookieKey.sidebarStatus);
  return stored === undefined ? true : stored === '1';
}

/** Zustand store of the frame state; `useFrame.getState()` outside React. */
export const useFrame = create<FrameState>((set, get) => ({
  sidebarOpened: initialOpened(),
  withoutAnimation: false,
  device: 'desktop',
  toggleSidebar: () => {
    const opened = !get().sidebarOpened;
    writeCookie(CookieKey.sidebarStatus, opened ? '1' : '0');
    set({ sidebarOpened: opened, withoutAnimation: false });
  },
  closeSidebar: (withoutAnimation = false) => {
    writeCookie(CookieKey.sidebarStatus, '0');
    set({ sidebarOpened: false, withoutAnimation });
  },
  setDevice: (device) => set({ device }),
}));
