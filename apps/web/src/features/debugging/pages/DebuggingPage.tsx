/**
 * Transparent debugging `/deviceDebugging` (issue 15 item 5, spec §2; view
 * `device/debugging/index`, permission device:debug:use): the gateways of the caller's scope,
 * and — the spec's `debug` child — the session view of one of them, addressed as
 * `/deviceDebugging?debug=<gatewayId>` so that the menu, breadcrumb, tab and title stay those of
 * the page (a reload takes one's session up again; the browser's back button returns to the
 * list). The rules (one session per gateway, idle timeout, rate and size limits, confirmed
 * writes) are the server's (contract api/debug.ts); the page says them.
 * Test hooks: `debugging` (and those of the components).
 */
import type { DeviceRow } from '@ess/contract';
import { Alert } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { GatewayList } from '../components/GatewayList';
import { SessionView } from '../components/SessionView';
import '../debugging.css';

/** The search parameter naming the gateway whose session is shown (the spec's `debug`). */
export const SESSION_PARAM = 'debug';

export default function DebuggingPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const raw = params.get(SESSION_PARAM);
  const gatewayId = raw && /^\d+$/.test(raw) ? Number(raw) : null;
  const open = useCallback((g: DeviceRow) => setParams({ [SESSION_PARAM]: String(g.id) }), [setParams]);
  const back = useCallback(() => setParams({}), [setParams]);

  return (
    <div className="debug-page" data-testid="debugging">
      {gatewayId === null ? (
        <>
          <Alert type="info" showIcon className="debug-intro" title={t('debugging.intro')} />
          <GatewayList onOpen={open} />
        </>
      ) : (
        <SessionView key={gatewayId} gatewayId={gatewayId} onBack={back} />
      )}
    </div>
  );
}
