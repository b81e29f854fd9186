/**
 * Business constants of the console (spec §9). Times are in milliseconds unless the name says
 * otherwise; widths in CSS pixels.
 */

/** Timeout of every call (spec §7, §9). */
export const REQUEST_TIMEOUT_MS = 500_000;

/** How long an error message stays on screen, in seconds (spec §8, §9: 5000 ms). */
export const ERROR_MESSAGE_DURATION_S = 5;

/** Delay before the page reloads after a login-expired answer (spec §8, §9). */
export const EXPIRED_RELOAD_DELAY_MS = 100;

/** Below this viewport width the frame uses the mobile layout (spec §2, §9). */
export const MOBILE_BREAKPOINT_PX = 992;

/** Width of the account dialogs (spec §9). */
export const DIALOG_WIDTH_PX = 700;

/**
 * Pause between the language-switch success message and the reload that applies the new
 * language everywhere (ours: long enough to read the message).
 */
export const LANGUAGE_RELOAD_DELAY_MS = 800;
