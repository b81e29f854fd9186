/**
 * Messages and confirm dialogs usable outside React (the request client, the guard, the login
 * page).
 *
 * The frame registers context-aware antd instances (they follow the theme and locale):
 * {@link registerMessages} with `message.useMessage()`, {@link registerModal} with
 * `Modal.useModal()`. Outside the frame (the login page) antd's static `message` is loaded on
 * first use, so antd stays out of the /login first load. Confirms without a registered modal
 * fall back to the browser's `confirm`.
 */

import type { Modal, message } from 'antd';
import type { ArgsProps } from 'antd/es/message';
import { ERROR_MESSAGE_DURATION_S } from '../config';

export type MessageApi = ReturnType<typeof message.useMessage>[0];
export type ModalApi = ReturnType<typeof Modal.useModal>[0];

let messageApi: MessageApi | null = null;
let modalApi: ModalApi | null = null;

/** Called with the instance from `message.useMessage()` (null when its holder unmounts). */
export function registerMessages(api: MessageApi | null): void {
  messageApi = api;
}

/** Called with the instance from `Modal.useModal()` (null when its holder unmounts). */
export function registerModal(api: ModalApi | null): void {
  modalApi = api;
}

function open(args: ArgsProps): void {
  if (messageApi) {
    void messageApi.open(args);
    return;
  }
  import('antd/es/message')
    .then(({ default: staticMessage }) => void staticMessage.open(args))
    .catch(() => console.error(args.content));
}

/**
 * Show an error message for 5 s (spec §8). Identical texts shown at the same time collapse into
 * one message (keyed by text), so a burst of failing calls does not stack copies.
 */
export function showError(text: string): void {
  open({ type: 'error', content: text, duration: ERROR_MESSAGE_DURATION_S, key: `err:${text}` });
}

/** Show a success message (antd's default 3 s). */
export function showSuccess(text: string): void {
  open({ type: 'success', content: text, key: `ok:${text}` });
}

/** Show an information message for 5 s (a longer text worth reading). */
export function showInfo(text: string): void {
  open({ type: 'info', content: text, duration: ERROR_MESSAGE_DURATION_S, key: `info:${text}` });
}

/** Show a warning message for 5 s. */
export function showWarning(text: string): void {
  open({ type: 'warning', content: text, duration: ERROR_MESSAGE_DURATION_S, key: `warn:${text}` });
}

/** antd confirm dialog; resolves true on OK, false on Cancel / close. */
export function confirmDialog(options: {
  title: string;
  content: string;
  okText: string;
  cancelText: string;
}): Promise<boolean> {
  if (!modalApi) return Promise.resolve(window.confirm(`${options.title}\n${options.content}`));
  const api = modalApi;
  return new Promise((resolve) => {
    api.confirm({
      ...options,
      onOk: () => resolve(true),
      onCancel: () => resolve(false),
    });
  });
}
