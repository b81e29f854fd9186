/**
 * Company choice of the sign-in (handshake step 2): the account belongs to several companies,
 * the user picks the one to enter (the first is preselected).
 * Test hooks: `company-step`, `company-list`, `company-option-<id>`, `company-enter`,
 * `company-back`.
 */
import type { LoginResponse } from '@ess/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Radio list of the companies with Enter and Back; calls `onEnter(companyId)`. */
export function CompanyStep({
  companies,
  busy,
  onEnter,
  onBack,
}: {
  companies: LoginResponse['companyList'];
  busy: boolean;
  onEnter: (companyId: number) => void;
  onBack: () => void;
}) {
  const { t } = useTranslation();
  const [companyId, setCompanyId] = useState(companies[0]?.id);
  return (
    <form
      className="login-company"
      data-testid="company-step"
      onSubmit={(e) => {
        e.preventDefault();
        if (companyId !== undefined && !busy) onEnter(companyId);
      }}
    >
      <h2 className="login-card__heading">{t('login.companyTitle')}</h2>
      <p className="login-card__hint">{t('login.companyHint')}</p>
      <fieldset className="login-company__list" data-testid="company-list">
        <legend className="visually-hidden">{t('login.companyTitle')}</legend>
        {companies.map((c) => (
          <label
            key={c.id}
            className={
              c.id === companyId
                ? 'login-company__option login-company__option--checked'
                : 'login-company__option'
            }
          >
            <input
              type="radio"
              name="company"
              value={c.id}
              checked={c.id === companyId}
              onChange={() => setCompanyId(c.id)}
              data-testid={`company-option-${c.id}`}
            />
            <span>{c.name}</span>
          </label>
        ))}
      </fieldset>
      <button
        type="submit"
        className="login-submit"
        disabled={busy || companyId === undefined}
        data-testid="company-enter"
      >
        {busy && <span className="login-submit__spinner" aria-hidden="true" />}
        {t('login.enter')}
      </button>
      <button
        type="button"
        className="login-link"
        onClick={onBack}
        disabled={busy}
        data-testid="company-back"
      >
        {t('login.back')}
      </button>
    </form>
  );
}
