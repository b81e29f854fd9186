/**
 * Language switch (spec §1, §4) for the navbar and the login page: a menu button listing
 * 简体中文 / English; choosing one runs `switchLanguage` (message, menu re-fetch, reload when
 * signed in). A small own menu rather than antd Dropdown, whose menu/trigger code (~24 KB
 * gzipped) would otherwise land in the /login first load.
 * Test hooks: trigger `language-switch`, options `lang-option-zh` / `lang-option-en`.
 */
import { CheckOutlined, TranslationOutlined } from '@ant-design/icons';
import type { Lang } from '@ess/contract';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLang } from '@/shared/i18n';
import { switchLanguage } from '../session';
import './language-switch.css';

const LANGS: Lang[] = ['zh', 'en'];

/** Menu button with the two languages; `className` styles the trigger (e.g. light on dark). */
export function LanguageSwitch({ className }: { className?: string }) {
  const { t } = useTranslation();
  const lang = currentLang();
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    rootRef.current?.querySelector<HTMLButtonElement>('[aria-checked="true"]')?.focus();
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const choose = (next: Lang) => {
    setOpen(false);
    if (next !== lang) void switchLanguage(next);
  };

  return (
    <div className="lang-switch" ref={rootRef}>
      <button
        type="button"
        className={className ? `icon-button ${className}` : 'icon-button'}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={t('lang.label')}
        title={t('lang.label')}
        onClick={() => setOpen((o) => !o)}
        data-testid="language-switch"
      >
        <TranslationOutlined />
      </button>
      {open && (
        <div className="lang-switch__menu" role="menu" id={menuId}>
          {LANGS.map((l) => (
            <button
              key={l}
              type="button"
              role="menuitemradio"
              aria-checked={l === lang}
              className={l === lang ? 'lang-switch__item lang-switch__item--active' : 'lang-switch__item'}
              onClick={() => choose(l)}
              data-testid={`lang-option-${l}`}
            >
              <span>{t(`lang.${l}`)}</span>
              {l === lang && <CheckOutlined />}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
