/**
 * Layout feature: the page frame. The frame itself is loaded lazily from './Frame'.
 */
export { menuItemOf } from './components/Sidebar';
export { useFrame } from './store';
export { useTags } from './tags/store';
