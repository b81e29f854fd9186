/**
 * antd context for the screens that use antd (the frame, the 404 page): ConfigProvider with the
 * locale of the UI language (spec §4: zhCN / enUS) and the theme, plus the context-aware message
 * and confirm-dialog hosts registered for code outside React (shared/feedback).
 * Not part of the app root, so /login loads without antd.
 */
import { ConfigProvider, Modal, message, theme } from 'antd';
import enUS from 'antd/es/locale/en_US';
import zhCN from 'antd/es/locale/zh_CN';
import { type PropsWithChildren, useEffect } from 'react';
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

/** Wraps antd screens: locale, theme, message and confirm hosts. */
export function AntdProvider({ children }: PropsWithChildren) {
  const { i18n } = useTranslation();
  const english = i18n.language.startsWith('en');
  return (
    <ConfigProvider
      locale={english ? enUS : zhCN}
      theme={{ algorithm: theme.defaultAlgorithm, token: { colorPrimary: '#1677ff', borderRadius: 6 } }}
    >
      <FeedbackHosts />
      {children}
    </ConfigProvider>
  );
}
