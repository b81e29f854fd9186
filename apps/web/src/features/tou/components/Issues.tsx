/**
 * Rule issues on screen: {@link FieldIssues} under or next to a field (the contract's text of
 * each code in the UI language, with its `{max}`), and {@link IssueSummary}, the list of every
 * issue of the scheme with where it is (`describeIssuePath`), each a link to its tab.
 * Test hooks: `field-issue` (each text under a field; `data-code` holds the code),
 * `issue-summary`, `issue-item`.
 */
import { describeIssuePath, errorMessage, type TouIssue, type TouSchemeDocument } from '@ess/contract';
import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { currentLang } from '@/shared/i18n';

/** The text of an issue in the UI language. */
export function issueText(issue: TouIssue): string {
  return errorMessage(issue.code, currentLang(), issue.params ?? {});
}

/** Red texts of the issues of one field (nothing when there are none). */
export function FieldIssues({ issues, testId }: { issues: readonly TouIssue[]; testId?: string }) {
  useTranslation(); // re-render on language change
  if (issues.length === 0) return null;
  const texts = new Map(issues.map((issue) => [issueText(issue), issue.code]));
  return (
    <div className="tou-field-issues" role="alert" data-testid={testId}>
      {[...texts].map(([text, code]) => (
        <div key={text} className="tou-field-issue" data-testid="field-issue" data-code={code}>
          {text}
        </div>
      ))}
    </div>
  );
}

/** Every issue of `doc`, each with its place; a click goes to it. */
export function IssueSummary({
  doc,
  issues,
  onGo,
}: {
  doc: TouSchemeDocument;
  issues: readonly TouIssue[];
  onGo: (issue: TouIssue) => void;
}) {
  const { t } = useTranslation();
  if (issues.length === 0) return null;
  const lang = currentLang();
  return (
    <Alert
      type="error"
      showIcon
      className="tou-summary"
      data-testid="issue-summary"
      title={t('tou.issuesTitle', { count: issues.length })}
      description={
        <ul className="tou-summary__list">
          {issues.map((issue, i) => {
            const where = describeIssuePath(doc, issue.path, lang) || t('tou.documentLevel');
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: issues have no identity of their own
              <li key={i}>
                <button
                  type="button"
                  className="tou-link"
                  onClick={() => onGo(issue)}
                  data-testid="issue-item"
                >
                  {where}
                </button>
                {lang === 'zh' ? '：' : ': '}
                {issueText(issue)}
              </li>
            );
          })}
        </ul>
      }
    />
  );
}
