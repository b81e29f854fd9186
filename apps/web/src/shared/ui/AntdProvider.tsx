/**
 * antd context for the screens that use antd (the frame, the 404 page): ConfigProvider with the
 * locale of the UI language (spec §4: zhCN / enUS) and the theme, plus the context-aware message
 * and confirm-dialog hosts registered for code outside React (shared/feedback).
 * Motion follows the operating system's "reduce motion" setting (`prefers-reduced-motion`): with
 * it, antd's opening and closing animations are off (theme token `motion: false`), so a dialog or
 * menu is there at once — for operators who asked for that, and for the browser tests, which
 * run with it so that no click lands on a control still moving.
 * Not part of the app root, so /login loads without antd.
 */
import { ConfigProvider, Modal, message, theme } from 'antd';
import enUS from 'antd/es/locale/en_US';
import zhCN from 'antd/es/locale/zh_CN';
import { type PropsWithChildren, useEffect, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { registerMessages, registerModal } from '../feedback';

function FeedbackHosts() {
  const [messageApi, messageHolder] = message.useMessage();
  const [modalApi, modalHolder] = Modal.useModal();
  useEffect(() => {
    registerMessages(messageApi);
    registerModal(modalApi);
    return () => {
      registerMessages(null);
      registerModal(null);
    };
  }, [messageApi, modalApi]);
  return (
    <>
      {messageHolder}
      {modalHolder}
    </>
  );
}

const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';

function subscribeReducedMotion(onChange: () => void): () => void {
  const query = window.matchMedia(REDUCED_MOTION);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** True while the system asks for reduced motion (updates when the setting changes). */
function useReducedMotion(): boolean {
  return useSyncExternalStore(subscribeReducedMotion, () => window.matchMedia(REDUCED_MOTION).matches);
}

/** Wraps antd screens: locale, theme (motion per the system setting), message and confirm hosts. */
export function AntdProvider({ children }: PropsWithChildren) {
  const { i18n } = useTranslation();
  const english = i18n.language.startsWith('en');
  const reducedMotion = useReducedMotion();
  return (
    <ConfigProvider
      locale={english ? enUS : zhCN}
      theme={{
        algorithm: theme.defaultAlgorithm,
        token: { colorPrimary: '#1677ff', borderRadius: 6, motion: !reducedMotion },
      }}
    >
      <FeedbackHosts />
      {children}
    </ConfigProvider>
  );
}
