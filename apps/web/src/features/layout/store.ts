/**
 * Frame UI state (spec §3, §4): sidebar opened/closed (persisted in the `sidebarStatus` cookie,
 * '1' opened, '0' closed; opened when absent) and the device type (mobile below 992 px).
 */
import { create } from 'zustand';
import { MOBILE_BREAKPOINT_PX } from '@/shared/config';
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

/** True when the viewport is narrower than the mobile breakpoint (992 px). */
export function isMobileWidth(): boolean {
  return document.body.getBoundingClientRect().width - 1 < MOBILE_BREAKPOINT_PX;
}

function initialOpened(): boolean {
  const stored = readCookie(CookieKey.sidebarStatus);
  return stored === undefined ? true : stored === '1';
}

const startsMobile = isMobileWidth();

/** Zustand store of the frame state; `useFrame.getState()` outside React. */
export const useFrame = create<FrameState>((set, get) => ({
  // On a narrow screen the page starts with the sidebar closed, without a flash of the drawer.
  sidebarOpened: startsMobile ? false : initialOpened(),
  withoutAnimation: startsMobile,
  device: startsMobile ? 'mobile' : 'desktop',
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
