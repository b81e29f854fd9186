/**
 * /login (spec §2, §5): account + password, checked on blur and on submit with the contract's
 * rules and messages (`checkLoginForm`, `validationMessages`); the account is trimmed and the
 * password hashed before sending. Show/hide toggle on the password. With several companies the
 * user picks one; with one it is selected. Once the session is stored the guard sends the user
 * to the `redirect` query or '/'.
 *
 * Plain form markup styled like the rest of the console rather than antd Form: antd's core,
 * form and input code would put /login over its 200 KB first-load budget (design §6).
 * Test hooks: `login-form`, `login-account`, `login-password`, `login-password-toggle`,
 * `login-account-error`, `login-password-error`, `login-submit`.
 */
import { EyeInvisibleOutlined, EyeOutlined, LockOutlined, UserOutlined } from '@ant-design/icons';
import { checkLoginForm, type LoginResponse, type ValidationMessageKey } from '@ess/contract';
import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '@/shared/feedback';
import { validationText } from '@/shared/i18n';
import { login } from '../api';
import { CompanyStep } from '../components/CompanyStep';
import { LanguageSwitch } from '../components/LanguageSwitch';
import { enterCompany } from '../session';
import './login.css';

type Field = 'account' | 'password';
type Errors = Partial<Record<Field, ValidationMessageKey>>;

function Brand() {
  const { t } = useTranslation();
  return (
    <div className="login-card__brand">
      <span className="login-card__logo">
        <svg viewBox="0 0 32 32" width="40" height="40" aria-hidden="true">
          <rect x="6" y="4" width="20" height="26" rx="3" fill="currentColor" />
          <rect x="12" y="1" width="8" height="4" rx="1" fill="currentColor" />
          <path d="M17 9l-6 10h5l-1 7 6-10h-5z" fill="#fff" />
        </svg>
      </span>
      <div>
        <h1 className="login-card__title">{t('app.name')}</h1>
        <p className="login-card__subtitle">{t('login.subtitle')}</p>
      </div>
    </div>
  );
}

/** The /login page (see module doc). */
export default function LoginPage() {
  const { t } = useTranslation();
  const [values, setValues] = useState({ account: '', password: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [showPassword, setShowPassword] = useState(false);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<LoginResponse | null>(null);
  const accountRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  /** Re-check one field (on blur, or while it shows an error). */
  const check = (field: Field, next = values) => {
    const found = checkLoginForm(next)[field];
    setErrors((e) => ({ ...e, [field]: found }));
  };

  const change = (field: Field, value: string) => {
    const next = { ...values, [field]: value };
    setValues(next);
    if (errors[field]) check(field, next);
  };

  const enter = async (res: LoginResponse, companyId: number) => {
    const outcome = await enterCompany(res, companyId);
    if (outcome === 'noMenu') setPending(null);
    // 'ok': the guard moves on to the redirect target as soon as the session is stored.
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const found = checkLoginForm(values);
    setErrors(found);
    if (found.account) return accountRef.current?.focus();
    if (found.password) return passwordRef.current?.focus();
    setBusy(true);
    try {
      const res = await login(values.account, values.password);
      const [only, ...others] = res.companyList;
      if (!only) showError(t('login.noCompany'));
      else if (others.length === 0) await enter(res, only.id);
      else setPending(res);
    } catch {
      // the client already showed the error (spec §8)
    } finally {
      setBusy(false);
    }
  };

  const enterChosen = async (companyId: number) => {
    if (!pending) return;
    setBusy(true);
    try {
      await enter(pending, companyId);
    } catch {
      // shown by the client; an expired ticket needs a new sign-in
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (field: Field) => {
    const key = errors[field];
    return key ? (
      <div
        className="login-field__error"
        id={`login-${field}-error`}
        role="alert"
        data-testid={`login-${field}-error`}
      >
        {validationText(key)}
      </div>
    ) : null;
  };

  return (
    <div className="login-page">
      <div className="login-page__lang">
        <LanguageSwitch className="icon-button--light" />
      </div>
      <main className="login-card">
        <Brand />
        {pending ? (
          <CompanyStep
            companies={pending.companyList}
            busy={busy}
            onEnter={(id) => void enterChosen(id)}
            onBack={() => setPending(null)}
          />
        ) : (
          <form className="login-form" noValidate onSubmit={(e) => void submit(e)} data-testid="login-form">
            <h2 className="login-card__heading">{t('login.title')}</h2>
            <div className="login-field">
              <label className="login-field__label" htmlFor="login-account">
                {t('login.account')}
              </label>
              <div className={errors.account ? 'login-input login-input--error' : 'login-input'}>
                <UserOutlined className="login-input__prefix" />
                <input
                  ref={accountRef}
                  id="login-account"
                  name="account"
                  autoComplete="username"
                  // biome-ignore lint/a11y/noAutofocus: the sign-in page has one task
                  autoFocus
                  placeholder={t('login.accountPlaceholder')}
                  value={values.account}
                  onChange={(e) => change('account', e.target.value)}
                  onBlur={() => check('account')}
                  aria-invalid={Boolean(errors.account)}
                  aria-describedby={errors.account ? 'login-account-error' : undefined}
                  data-testid="login-account"
                />
              </div>
              {fieldError('account')}
            </div>
            <div className="login-field">
              <label className="login-field__label" htmlFor="login-password">
                {t('login.password')}
              </label>
              <div className={errors.password ? 'login-input login-input--error' : 'login-input'}>
                <LockOutlined className="login-input__prefix" />
                <input
                  ref={passwordRef}
                  id="login-password"
                  name="password"
                  type={showPassword ? 'text' : 'password'}
                  autoComplete="current-password"
                  placeholder={t('login.passwordPlaceholder')}
                  value={values.password}
                  onChange={(e) => change('password', e.target.value)}
                  onBlur={() => check('password')}
                  aria-invalid={Boolean(errors.password)}
                  aria-describedby={errors.password ? 'login-password-error' : undefined}
                  data-testid="login-password"
                />
                <button
                  type="button"
                  className="login-input__suffix"
                  onClick={() => setShowPassword((s) => !s)}
                  aria-pressed={showPassword}
                  aria-label={showPassword ? t('login.hidePassword') : t('login.showPassword')}
                  title={showPassword ? t('login.hidePassword') : t('login.showPassword')}
                  data-testid="login-password-toggle"
                >
                  {showPassword ? <EyeOutlined /> : <EyeInvisibleOutlined />}
                </button>
              </div>
              {fieldError('password')}
            </div>
            <button type="submit" className="login-submit" disabled={busy} data-testid="login-submit">
              {busy && <span className="login-submit__spinner" aria-hidden="true" />}
              {t('login.submit')}
            </button>
          </form>
        )}
      </main>
    </div>
  );
}
