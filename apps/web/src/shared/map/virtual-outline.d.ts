/** The site map's province outlines, built from data/china.json by vite.config.ts (`mapOutline`). */
declare module 'virtual:ess/china-outline' {
  const outline: import('./outline').MapOutline;
  export default outline;
}
