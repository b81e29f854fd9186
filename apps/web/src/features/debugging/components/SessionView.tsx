/**
 * The debugging session of one gateway (issue 15 item 5; the spec's `debug` child of
 * `/deviceDebugging`): opened on arrival (`debug/open`; one's own open session is answered
 * again), it shows who holds it, since when (site time), and the time left before the idle
 * timeout (each frame restarts it; the server's `expiresAt`), with a close button. The composer
 * sends frames (a write only after a second confirmation, sent with `confirmWrite: true`); the
 * log shows the gateway's frames, the past ones (`debug/frames`) loaded on arrival.
 *
 * Refusals are shown here, translated: 3043 (another user's session: the server's text names
 * who and until when, with "try again"), 3044 (the session ended: "open a new session"), 3045
 * (the rate limit), 3046 (asks the confirmation and sends again), and the others' texts.
 * Leaving the view closes one's session.
 * Test hooks: `debug-session`, `debug-session-state` (data-state opening|open|ended|busy|failed),
 * `debug-session-by`, `debug-session-since`, `debug-countdown`, `debug-close`, `debug-back`,
 * `debug-reopen`, `debug-problem`.
 */
import { ArrowLeftOutlined, PoweroffOutlined, ReloadOutlined } from '@ant-design/icons';
import { type DebugFrame, type DebugPort, type DebugSession, ErrorCode, formatHex } from '@ess/contract';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Alert, Button, Tag } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureText } from '@/shared/api/client';
import { isApiError } from '@/shared/api/errors';
import { confirmDialog, showSuccess } from '@/shared/feedback';
import { formatDateTime } from '@/shared/format';
import {
  closeSession,
  debugKeys,
  fetchFrames,
  fetchGateways,
  fetchSites,
  openSession,
  sendFrame,
} from '../api';
import { formatCountdown, mergeFrames } from '../model';
import { Composer, type ReadyFrame } from './Composer';
import { FrameLog } from './FrameLog';

const FRAMES_PAGE = 50;

type Phase =
  | { kind: 'opening' }
  | { kind: 'open'; session: DebugSession }
  | { kind: 'ended'; session: DebugSession | null }
  | { kind: 'busy'; text: string }
  | { kind: 'failed'; text: string };

/** The text of a failed call: the server's (it fills names, times and limits), else the catalogue's. */
function problemText(err: unknown): string {
  if (isApiError(err)) return failureText(err.code, err.serverMsg, 'server');
  return err instanceof Error ? err.message : String(err);
}

/** Re-renders every second while `on`; answers the time now (ms). */
function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [on]);
  return now;
}

interface Props {
  gatewayId: number;
  onBack: () => void;
}

/** The session view. */
export function SessionView({ gatewayId, onBack }: Props) {
  const { t } = useTranslation();
  const [phase, setPhase] = useState<Phase>({ kind: 'opening' });
  const [expiresAt, setExpiresAt] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [fresh, setFresh] = useState<DebugFrame[]>([]);
  const [attempt, setAttempt] = useState(0);
  const openSessionId = useRef<string | null>(null);

  const gateways = useQuery({ queryKey: debugKeys.gateways({}), queryFn: () => fetchGateways({}) });
  const sites = useQuery({ queryKey: debugKeys.sites, queryFn: fetchSites });
  const gateway = gateways.data?.find((g) => g.id === gatewayId);
  const session = phase.kind === 'open' || phase.kind === 'ended' ? phase.session : null;
  const timeZone =
    session?.timezone ?? sites.data?.list.find((s) => s.id === gateway?.siteId)?.timezone ?? undefined;

  // Open (or take up again) the session on arrival and on "reopen"; leaving closes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` asks for a new opening
  useEffect(() => {
    let cancelled = false;
    setPhase({ kind: 'opening' });
    setProblem(null);
    openSession(gatewayId).then(
      (s) => {
        if (cancelled) return;
        openSessionId.current = s.sessionId;
        setExpiresAt(Date.parse(s.expiresAt));
        setPhase({ kind: 'open', session: s });
      },
      (err: unknown) => {
        if (cancelled) return;
        const text = problemText(err);
        setPhase(
          isApiError(err) && err.code === ErrorCode.DEBUG_SESSION_BUSY
            ? { kind: 'busy', text }
            : { kind: 'failed', text },
        );
      },
    );
    return () => {
      cancelled = true;
      const id = openSessionId.current;
      openSessionId.current = null;
      if (id) void closeSession(id).catch(() => undefined);
    };
  }, [gatewayId, attempt]);

  const now = useNow(phase.kind === 'open');
  const left = expiresAt - now;
  useEffect(() => {
    if (phase.kind === 'open' && left <= 0) {
      openSessionId.current = null;
      setPhase({ kind: 'ended', session: phase.session });
    }
  }, [phase, left]);

  const frames = useInfiniteQuery({
    queryKey: debugKeys.frames(gatewayId),
    queryFn: ({ pageParam }) => fetchFrames(gatewayId, pageParam, FRAMES_PAGE),
    initialPageParam: 1,
    getNextPageParam: (last, all) => (all.length * FRAMES_PAGE < last.total ? all.length + 1 : undefined),
    staleTime: 0,
  });
  const shown = useMemo(
    () => mergeFrames(fresh, frames.data?.pages.flatMap((p) => p.list) ?? []),
    [fresh, frames.data],
  );

  const ended = useCallback((s: DebugSession | null) => {
    openSessionId.current = null;
    setPhase({ kind: 'ended', session: s });
  }, []);

  /** Asks the second confirmation of a write; true to send. */
  const confirmWrite = async (ready: ReadyFrame, port: DebugPort): Promise<boolean> => {
    const r = ready.request;
    const portName = t(`debugging.port.${port}`);
    const hex = formatHex(ready.bytes);
    const content =
      r?.fn === 6
        ? t('debugging.confirm.single', {
            unit: r.address,
            register: r.register,
            value: r.value,
            port: portName,
            hex,
          })
        : r?.fn === 16
          ? t('debugging.confirm.multiple', {
              unit: r.address,
              from: r.register,
              to: r.register + r.values.length - 1,
              values: r.values.join(', '),
              port: portName,
              hex,
            })
          : t('debugging.confirm.raw', { port: portName, hex });
    return confirmDialog({
      title: t('debugging.confirm.title'),
      content,
      okText: t('debugging.confirm.ok'),
      cancelText: t('common.cancel'),
    });
  };

  const send = async (ready: ReadyFrame, port: DebugPort, timeoutMs: number): Promise<void> => {
    if (phase.kind !== 'open') return;
    const current = phase.session;
    let confirmed = false;
    if (ready.write) {
      if (!(await confirmWrite(ready, port))) return;
      confirmed = true;
    }
    for (;;) {
      try {
        const answer = await sendFrame({
          sessionId: current.sessionId,
          port,
          frame: ready.frame,
          timeoutMs,
          confirmWrite: confirmed,
        });
        setFresh((f) => [answer.frame, ...f]);
        setExpiresAt(Date.parse(answer.expiresAt));
        setProblem(null);
        return;
      } catch (err) {
        if (isApiError(err) && err.code === ErrorCode.DEBUG_WRITE_NOT_CONFIRMED && !confirmed) {
          // The server counts this frame as a write: ask as for any other.
          if (!(await confirmWrite(ready, port))) return;
          confirmed = true;
          continue;
        }
        if (isApiError(err) && err.code === ErrorCode.DEBUG_SESSION_ENDED) ended(current);
        else setProblem(problemText(err));
        return;
      }
    }
  };

  const close = async () => {
    if (phase.kind !== 'open') return;
    try {
      await closeSession(phase.session.sessionId);
      showSuccess(t('debugging.session.closed'));
    } catch (err) {
      if (!(isApiError(err) && err.code === ErrorCode.DEBUG_SESSION_ENDED)) {
        setProblem(problemText(err));
        return;
      }
    }
    ended(phase.session);
  };

  const sn = session?.gatewaySn ?? gateway?.sn ?? `#${gatewayId}`;
  const siteName = session?.siteName ?? gateway?.siteName ?? '';

  return (
    <section className="debug-session" data-testid="debug-session">
      <header className="debug-session__head">
        <div className="debug-session__title">
          <Button icon={<ArrowLeftOutlined />} onClick={onBack} data-testid="debug-back">
            {t('debugging.session.back')}
          </Button>
          <h2>
            <code className="debug-sn">{sn}</code>
            {siteName && <span className="debug-session__site">{siteName}</span>}
          </h2>
          <span data-testid="debug-session-state" data-state={phase.kind}>
            <Tag color={phase.kind === 'open' ? 'green' : phase.kind === 'opening' ? 'blue' : 'default'}>
              {t(`debugging.session.state.${phase.kind}`)}
            </Tag>
          </span>
        </div>
        {session && (
          <dl className="debug-session__facts">
            <div>
              <dt>{t('debugging.session.by')}</dt>
              <dd data-testid="debug-session-by">{session.openedBy}</dd>
            </div>
            <div>
              <dt>{t('debugging.session.since')}</dt>
              <dd data-testid="debug-session-since">
                {formatDateTime(Date.parse(session.openedAt), session.timezone)}
                <span className="debug-muted"> {session.timezone}</span>
              </dd>
            </div>
            {phase.kind === 'open' && (
              <div>
                <dt>{t('debugging.session.expiresIn')}</dt>
                <dd
                  className="debug-countdown"
                  data-testid="debug-countdown"
                  data-left-ms={Math.max(0, left)}
                >
                  {formatCountdown(left)}
                </dd>
              </div>
            )}
            <div className="debug-session__rules">
              <dt>{t('debugging.session.limits')}</dt>
              <dd>
                {t('debugging.session.limitsText', {
                  minutes: Math.round(session.idleTimeoutS / 60),
                  frames: session.maxFramesPerMinute,
                  bytes: session.maxFrameBytes,
                })}
              </dd>
            </div>
          </dl>
        )}
        {phase.kind === 'open' && (
          <Button danger icon={<PoweroffOutlined />} onClick={() => void close()} data-testid="debug-close">
            {t('debugging.session.close')}
          </Button>
        )}
      </header>

      {phase.kind === 'ended' && (
        <Alert
          type="warning"
          showIcon
          title={t('debugging.session.endedText')}
          action={
            <Button
              size="small"
              icon={<ReloadOutlined />}
              onClick={() => setAttempt((a) => a + 1)}
              data-testid="debug-reopen"
            >
              {t('debugging.session.reopen')}
            </Button>
          }
        />
      )}
      {(phase.kind === 'busy' || phase.kind === 'failed') && (
        <Alert
          type={phase.kind === 'busy' ? 'warning' : 'error'}
          showIcon
          title={phase.text}
          data-testid="debug-problem"
          action={
            <Button
              size="small"
              icon={<ReloadOutlined />}
              onClick={() => setAttempt((a) => a + 1)}
              data-testid="debug-reopen"
            >
              {t('debugging.session.retry')}
            </Button>
          }
        />
      )}
      {problem && (
        <Alert
          type="error"
          showIcon
          closable
          onClose={() => setProblem(null)}
          title={problem}
          data-testid="debug-problem"
        />
      )}

      <div className="debug-session__body">
        <Composer onSend={send} enabled={phase.kind === 'open'} />
        <FrameLog
          frames={shown}
          timeZone={timeZone}
          loading={frames.isLoading}
          onMore={frames.hasNextPage ? () => void frames.fetchNextPage() : null}
          loadingMore={frames.isFetchingNextPage}
        />
      </div>
    </section>
  );
}
