/**
 * The big-screen kit shared by the site screens (features/bigscreen) and the cockpit
 * (features/cockpit): the scaled 1920×1080 {@link Stage} with its header, {@link Panel},
 * {@link Figure}, the dark line chart {@link ScreenChart} and their stylesheet (screen.css).
 */
export { default as ScreenChart, type ScreenSeries } from './ScreenChart';
export { Figure, Panel, Stage, StageClock, type StageProps, type StageTab } from './Stage';
