/**
 * The site select of the registry's dialogs (add device, move device): the sites the caller may
 * see — the server's scope (`site/pageList`) — searched on the server by name or code as the
 * operator types, so a fleet larger than one page is reachable. Each option names the site, its
 * code and its company, so that a customer's site is not taken for one's own. `known` rows (the
 * preselected site) are offered before any search finds them; `exclude` leaves one site out (a
 * move's current site). `onPick` hands the parent the chosen row, to name it.
 * Test hook: `testId` on the Select; options carry `data-site-id`.
 */
import type { SiteRow } from '@ess/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchSites, registryKeys } from '../api';
import { useDebounced } from '../debounce';

/** Sites offered per search (the closest matches by id order). */
const PICK_PAGE_SIZE = 50;

interface Props {
  value?: number;
  onChange?: (siteId: number) => void;
  /** Set by Form.Item: the control's id, for its label. */
  id?: string;
  /** Rows offered even before a search finds them (e.g. the preselected site). */
  known?: readonly SiteRow[];
  /** A site not to offer (the device's current site when moving it). */
  exclude?: number;
  /** The chosen row, whenever the choice changes. */
  onPick?: (site: SiteRow | null) => void;
  placeholder?: string;
  testId: string;
}

/** The select; see the module comment. */
export function SiteSelect({ value, onChange, id, known = [], exclude, onPick, placeholder, testId }: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const keyword = useDebounced(search.trim(), 300);
  const query = useQuery({
    queryKey: registryKeys.sitePicker(keyword),
    queryFn: () => fetchSites({ pageNum: 1, pageSize: PICK_PAGE_SIZE, ...(keyword ? { keyword } : {}) }),
    placeholderData: keepPreviousData,
  });

  const rows = useMemo(() => {
    const byId = new Map<number, SiteRow>();
    for (const s of known) byId.set(s.id, s);
    for (const s of query.data?.list ?? []) byId.set(s.id, s);
    return [...byId.values()].filter((s) => s.id !== exclude);
  }, [known, query.data, exclude]);
  // Tell the company apart only when the offered sites belong to more than one.
  const manyCompanies = new Set(rows.map((s) => s.companyId)).size > 1;

  const options = rows
    .filter(
      (s) =>
        !keyword ||
        s.name.toLowerCase().includes(keyword.toLowerCase()) ||
        s.code.toLowerCase().includes(keyword.toLowerCase()),
    )
    .map((s) => ({
      value: s.id,
      label: `${s.name} (${s.code})`,
      site: s,
    }));

  return (
    <Select<number, (typeof options)[number]>
      id={id}
      value={value}
      onChange={(next, option) => {
        onChange?.(next);
        onPick?.((Array.isArray(option) ? option[0] : option)?.site ?? null);
      }}
      options={options}
      showSearch={{ filterOption: false, onSearch: setSearch, searchValue: search }}
      loading={query.isFetching}
      notFoundContent={t('devices.noSiteMatch')}
      placeholder={placeholder ?? t('devices.placeholder.site')}
      optionRender={(option) => (
        <span className="site-option" data-site-id={option.data.site.id}>
          <span className="site-option__name">{option.label}</span>
          {manyCompanies && <span className="site-option__company">{option.data.site.companyName}</span>}
        </span>
      )}
      onOpenChange={(open) => {
        if (!open) setSearch('');
      }}
      data-testid={testId}
    />
  );
}
