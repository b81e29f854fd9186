/**
 * Company picker of the departments, employees and roles screens: which company's departments,
 * employees or roles the page lists and saves (their calls take `companyId`), so the platform
 * administrator can, for example, add the first employee of an agent it just created.
 *
 * `useCompanyChoice()` keeps the choice in the page (the signed-in user's company until another
 * is picked). `CompanyPicker` shows a Select of every company the caller may see
 * (`company/options`), grouped by type (platform, agents, investors, …) with the own company
 * and disabled companies tagged; it shows nothing while there is only one company (unless
 * `showSingle`: a form field that names the one company). The list is fetched again each time
 * the Select opens, so a company created meanwhile is there. In a Form.Item it takes the item's
 * `id`, `value` and `onChange`.
 * Test hook: `company-picker` (or `testId`).
 */
import { BankOutlined } from '@ant-design/icons';
import { COMPANY_KINDS } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Select, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '@/features/auth';
import { fetchCompanyOptions, orgPeopleKeys } from './api';
import './company-picker.css';

/** The company a page works on: the signed-in user's own until the picker chooses another. */
export function useCompanyChoice(): [number | undefined, (companyId: number) => void] {
  const own = useSession((s) => s.user?.companyId);
  const [picked, setPicked] = useState<number>();
  return [picked ?? own, setPicked];
}

/** Every company the caller may see (`company/options`), as the picker lists them. */
export function useCompanyOptions() {
  return useQuery({ queryKey: orgPeopleKeys.companies, queryFn: fetchCompanyOptions, staleTime: 0 });
}

/** Group order: the platform, then the partner kinds, then any other type. */
const TYPE_ORDER: readonly string[] = ['platform', ...COMPANY_KINDS];

interface Props {
  value?: number;
  onChange?: (companyId: number) => void;
  /** Placement in the page's layout. */
  className?: string;
  /** Shown even when the caller sees one company only (a form's company field). */
  showSingle?: boolean;
  disabled?: boolean;
  /** The control's id (set by Form.Item, for its label). */
  id?: string;
  /** `data-testid`; default `company-picker`. */
  testId?: string;
  placeholder?: string;
}

/** The picker; see the module comment. */
export function CompanyPicker({
  value,
  onChange,
  className,
  showSingle = false,
  disabled: readOnly,
  id,
  testId = 'company-picker',
  placeholder,
}: Props) {
  const { t } = useTranslation();
  const own = useSession((s) => s.user?.companyId);
  const query = useCompanyOptions();
  const list = query.data ?? [];
  const disabled = useMemo(
    () => new Set((query.data ?? []).filter((c) => c.status === 'disabled').map((c) => c.id)),
    [query.data],
  );

  const groups = useMemo(() => {
    const typeLabel = (type: string): string =>
      type === 'platform'
        ? t('companyPicker.platform')
        : (COMPANY_KINDS as readonly string[]).includes(type)
          ? t(`org.kind.${type as (typeof COMPANY_KINDS)[number]}`)
          : type;
    const types = [...new Set((query.data ?? []).map((c) => c.type))].sort(
      (a, b) => rank(a) - rank(b) || a.localeCompare(b),
    );
    return types.map((type) => ({
      label: typeLabel(type),
      title: typeLabel(type),
      options: (query.data ?? []).filter((c) => c.type === type).map((c) => ({ value: c.id, label: c.name })),
    }));
  }, [query.data, t]);

  if (list.length <= 1 && !showSingle) return null;

  return (
    <Select
      id={id}
      disabled={readOnly}
      loading={query.isLoading}
      placeholder={placeholder}
      value={value}
      onChange={onChange}
      options={groups}
      showSearch={{ optionFilterProp: 'label' }}
      onOpenChange={(open) => {
        if (open) void query.refetch();
      }}
      prefix={<BankOutlined aria-hidden />}
      optionRender={(option) => (
        <span className="company-picker__option">
          <span className="company-picker__name">{option.label}</span>
          {option.value === own && <Tag color="blue">{t('companyPicker.own')}</Tag>}
          {disabled.has(Number(option.value)) && <Tag>{t('companyPicker.disabled')}</Tag>}
        </span>
      )}
      popupMatchSelectWidth={false}
      aria-label={t('companyPicker.label')}
      className={className ? `company-picker ${className}` : 'company-picker'}
      data-testid={testId}
    />
  );
}

function rank(type: string): number {
  const i = TYPE_ORDER.indexOf(type);
  return i < 0 ? TYPE_ORDER.length : i;
}
