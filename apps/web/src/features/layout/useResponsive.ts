/**
 * Mobile handling of the frame (spec §2, §4): below 992 px the device is 'mobile' and the
 * sidebar is closed on entering that width and on every route change while it is open.
 */
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';
import { isMobileWidth, useFrame } from './store';

/** Keeps the device type in sync with the window width and closes the sidebar as above. */
export function useResponsive(): void {
  const { pathname } = useLocation();
  const wasMobile = useRef<boolean>(useFrame.getState().device === 'mobile');

  useEffect(() => {
    const check = () => {
      if (document.hidden) return;
      const mobile = isMobileWidth();
      const { setDevice, closeSidebar } = useFrame.getState();
      setDevice(mobile ? 'mobile' : 'desktop');
      if (mobile && !wasMobile.current) closeSidebar(true);
      wasMobile.current = mobile;
    };
    check();
    window.addEventListener('resize', check);
    return () => window.removeEventListener('resize', check);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every route change on purpose
  useEffect(() => {
    const { device, sidebarOpened, closeSidebar } = useFrame.getState();
    if (device === 'mobile' && sidebarOpened) closeSidebar(false);
  }, [pathname]);
}
