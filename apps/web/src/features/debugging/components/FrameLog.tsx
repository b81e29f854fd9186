/**
 * The terminal-like log of a gateway's frames (issue 15 item 5), newest at the top, right under
 * the composer, so an answer appears where the operator looks (a new one is scrolled into
 * view): time in the site's zone, port, who sent it, round trip (ms), the request (TX) and the
 * response (RX) in hex with the CRC apart, then what the answer means — the registers read
 * (register, hex, unsigned, signed), the register a write changed, the exception with its Modbus
 * name (`MODBUS_EXCEPTIONS`), no answer within the timeout, or why it could not be decoded.
 * Older frames load on demand.
 * Test hooks: `debug-log` (data-loading while the past frames load), `debug-frame-<id>`
 * (attributes data-timeout, data-write), `debug-frame-registers`, `debug-log-more`.
 */
import { type DebugFrame, MODBUS_EXCEPTIONS, parseHexFrame } from '@ess/contract';
import { Button, Empty } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatTime } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { registerRows, splitCrc } from '../model';

/** Hex of a stored frame with its CRC shown apart (as stored when it does not parse). */
function HexLine({ label, hex, kind }: { label: string; hex: string; kind: 'tx' | 'rx' }) {
  let parts: [string, string];
  try {
    parts = splitCrc(parseHexFrame(hex));
  } catch {
    parts = [hex, ''];
  }
  return (
    <div className={`debug-line debug-line--${kind}`}>
      <span className="debug-line__label">{label}</span>
      <span className="debug-line__hex" data-testid={`debug-frame-${kind}`}>
        {parts[0]}
        {parts[1] && <span className="debug-line__crc"> {parts[1]}</span>}
      </span>
    </div>
  );
}

function FrameEntry({ frame, timeZone }: { frame: DebugFrame; timeZone?: string }) {
  const { t } = useTranslation();
  const at = Date.parse(frame.at);
  const rows = registerRows(frame.decoded);
  const decoded = frame.decoded;
  return (
    <li
      className="debug-frame"
      data-testid={`debug-frame-${frame.id}`}
      data-timeout={frame.timeout}
      data-write={frame.write}
    >
      <div className="debug-frame__head">
        <time dateTime={frame.at} title={formatDateTime(at, timeZone)}>
          {formatTime(at, timeZone)}
        </time>
        <span className="debug-frame__port">{t(`debugging.port.${frame.port}`)}</span>
        {frame.write && <span className="debug-frame__write">{t('debugging.log.write')}</span>}
        <span className="debug-frame__by">{frame.by}</span>
        <span className="debug-frame__rtt">
          {frame.rttMs === null ? '' : t('debugging.log.rtt', { ms: frame.rttMs })}
        </span>
      </div>
      <HexLine label="TX" hex={frame.requestHex} kind="tx" />
      {frame.responseHex !== null && frame.responseHex !== '' && (
        <HexLine label="RX" hex={frame.responseHex} kind="rx" />
      )}
      {frame.timeout && (
        <div className="debug-note debug-note--warn" data-testid="debug-frame-timeout">
          {t('debugging.log.timeout')}
        </div>
      )}
      {decoded?.kind === 'exception' && (
        <div className="debug-note debug-note--error" data-testid="debug-frame-exception">
          {t('debugging.log.exception', {
            code: decoded.exceptionCode,
            name:
              MODBUS_EXCEPTIONS[decoded.exceptionCode]?.[currentLang()] ??
              t('debugging.log.unknownException'),
          })}
        </div>
      )}
      {decoded?.kind === 'write' && (
        <div className="debug-note debug-note--ok">
          {t('debugging.log.written', { register: decoded.register })}
        </div>
      )}
      {frame.error && (
        <div className="debug-note debug-note--error" data-testid="debug-frame-error">
          {frame.error}
        </div>
      )}
      {rows.length > 0 && (
        <div className="debug-registers-wrap">
          <table className="debug-registers" data-testid="debug-frame-registers">
            <thead>
              <tr>
                <th>{t('debugging.log.register')}</th>
                <th>{t('debugging.log.hex')}</th>
                <th>{t('debugging.log.unsigned')}</th>
                <th>{t('debugging.log.signed')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.register} data-register={r.register}>
                  <td>{r.register}</td>
                  <td>{r.hex}</td>
                  <td data-testid="debug-register-unsigned">{r.unsigned}</td>
                  <td>{r.signed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}

interface Props {
  frames: readonly DebugFrame[];
  /** The site's IANA zone, for the times. */
  timeZone?: string;
  loading: boolean;
  /** Loads older frames; absent when there are none. */
  onMore?: (() => void) | null;
  loadingMore?: boolean;
}

/** The frame log. */
export function FrameLog({ frames, timeZone, loading, onMore, loadingMore }: Props) {
  const { t } = useTranslation();
  // A frame arriving at the top after the first load is brought into view (on a phone the log
  // is below the composer), without moving what is already visible.
  const list = useRef<HTMLOListElement>(null);
  const newest = frames[0]?.id;
  const seenNewest = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (newest === undefined) return;
    if (seenNewest.current !== undefined && newest !== seenNewest.current) {
      list.current?.firstElementChild?.scrollIntoView({ block: 'nearest' });
    }
    seenNewest.current = newest;
  }, [newest]);
  return (
    <section
      className="debug-log"
      data-testid="debug-log"
      data-loading={loading}
      aria-label={t('debugging.log.title')}
    >
      <header className="debug-log__head">
        <h3>{t('debugging.log.title')}</h3>
        {timeZone && <span className="debug-muted">{t('debugging.log.zone', { zone: timeZone })}</span>}
      </header>
      {frames.length === 0 ? (
        <Empty
          className="debug-log__empty"
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={loading ? t('debugging.log.loading') : t('debugging.log.empty')}
        />
      ) : (
        <ol className="debug-log__list" aria-live="polite" ref={list}>
          {frames.map((f) => (
            <FrameEntry key={f.id} frame={f} timeZone={timeZone} />
          ))}
        </ol>
      )}
      {onMore && (
        <div className="debug-log__more">
          <Button size="small" onClick={onMore} loading={loadingMore} data-testid="debug-log-more">
            {t('debugging.log.more')}
          </Button>
        </div>
      )}
    </section>
  );
}
