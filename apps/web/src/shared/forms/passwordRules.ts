/**
 * antd Form rules of a new password (own change, or one an administrator sets for an employee) and
 * its confirmation, with the spec's texts (§5: at least 6 characters; "enter the password
 * again"; "the two passwords are inconsistent"). The digest is taken when sending (api.ts).
 */
import { PASSWORD_MIN_LENGTH } from '@ess/contract';
import type { FormRule } from 'antd';
import { validationText } from '@/shared/i18n';

const reject = (text: string) => Promise.reject(new Error(text));

/** Required, at least {@link PASSWORD_MIN_LENGTH} characters. */
export function passwordRules(): FormRule[] {
  return [
    {
      required: true,
      validator: (_, v: string | undefined) => {
        if (!v) return reject(validationText('newPasswordRequired'));
        if (v.length < PASSWORD_MIN_LENGTH) return reject(validationText('passwordTooShort'));
        return Promise.resolve();
      },
    },
  ];
}

/** Required and equal to the field `passwordField` (list it in the item's `dependencies`). */
export function confirmRules(passwordField: string): FormRule[] {
  return [
    ({ getFieldValue }) => ({
      required: true,
      validator: (_, v: string | undefined) => {
        if (!v) return reject(validationText('confirmPasswordRequired'));
        if (v !== getFieldValue(passwordField)) return reject(validationText('passwordsInconsistent'));
        return Promise.resolve();
      },
    }),
  ];
}
