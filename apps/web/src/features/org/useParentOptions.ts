/**
 * Options of the company dialog's parent select (on add; companies are not moved afterwards):
 * the caller's own company, then the companies of every kind the caller may list (one
 * `<kind>/pageList` of up to 500 rows per kind, fetched while the dialog is open), grouped by
 * kind.
 */
import { COMPANY_KINDS, MAX_PAGE_SIZE } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { hasPermission, useSession } from '@/features/auth';
import { fetchCompanies, KIND_PERMS, orgKeys } from './api';

interface Group {
  label: string;
  options: { value: number; label: string }[];
}

/** Parent options for the dialog; see the module comment. */
export function useParentOptions(enabled: boolean): { options: Group[]; loading: boolean } {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const kinds = COMPANY_KINDS.filter((k) => hasPermission(user, KIND_PERMS[k].list));

  const query = useQuery({
    queryKey: [...orgKeys.parents, kinds],
    queryFn: async () => {
      const pages = await Promise.all(
        kinds.map((kind) => fetchCompanies(kind, { pageNum: 1, pageSize: MAX_PAGE_SIZE })),
      );
      return kinds.map((kind, i) => ({ kind, rows: pages[i]?.list ?? [] }));
    },
    enabled: enabled && kinds.length > 0,
  });

  const options = useMemo(() => {
    const groups: Group[] = [];
    if (user) {
      groups.push({
        label: t('org.ownCompany'),
        options: [{ value: user.companyId, label: user.companyName }],
      });
    }
    for (const { kind, rows } of query.data ?? []) {
      const options = rows
        .filter((row) => row.id !== user?.companyId)
        .map((row) => ({ value: row.id, label: row.name }));
      if (options.length > 0) groups.push({ label: t(`org.kind.${kind}`), options });
    }
    return groups;
  }, [query.data, user, t]);

  return { options, loading: query.isFetching };
}
