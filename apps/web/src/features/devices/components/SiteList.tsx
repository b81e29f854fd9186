/**
 * Left column of the site configuration screen: search (name or code, sent to the server),
 * "all sites", then each site with its connection badge (gateways online / registered),
 * device count, storage capacity (kWh) and PCS power (kW). Paged by the server.
 * Test hooks: `site-list` (the list), `site-item-<id>`, `site-item-all`, `site-search`,
 * `site-add`.
 */
import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import type { SiteRow } from '@ess/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Empty, Input, Pagination, Skeleton, Tag } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatQuantity } from '@/shared/format';
import { fetchSites, registryKeys } from '../api';
import { useDebounced } from '../debounce';
import { siteLink } from '../labels';

/** Sites per page of the list. */
const SITE_PAGE_SIZE = 50;

export type SiteSelection = number | 'all';

interface Props {
  selected: SiteSelection | null;
  onSelect: (selection: SiteSelection, site: SiteRow | null) => void;
  /** Called with the loaded page so the parent can pick a default and refresh the header. */
  onLoaded: (sites: SiteRow[]) => void;
  onAdd: (() => void) | null;
}

/** Scrolls the list (not the page) so that `item` is in view. */
function revealInList(item: HTMLElement): void {
  const list = item.closest('ul');
  if (!list) return;
  const box = list.getBoundingClientRect();
  const own = item.getBoundingClientRect();
  if (own.top < box.top) list.scrollTop -= box.top - own.top;
  else if (own.bottom > box.bottom) list.scrollTop += own.bottom - box.bottom;
}

function SiteItem({ site, active, onClick }: { site: SiteRow; active: boolean; onClick: () => void }) {
  const { t } = useTranslation();
  const link = siteLink(site);
  const ref = useRef<HTMLButtonElement>(null);
  // A site selected from elsewhere (the one just added) is scrolled into the list's view.
  useEffect(() => {
    if (active && ref.current) revealInList(ref.current);
  }, [active]);
  return (
    <li>
      <button
        ref={ref}
        type="button"
        className={active ? 'site-item site-item--active' : 'site-item'}
        onClick={onClick}
        aria-pressed={active}
        data-testid={`site-item-${site.id}`}
      >
        <span className="site-item__head">
          <span className={`status-dot status-dot--${link}`} aria-hidden="true" />
          <span className="site-item__name">{site.name}</span>
          {site.isDemo && (
            <Tag className="site-item__demo" color="purple">
              {t('devices.demo')}
            </Tag>
          )}
        </span>
        <span className="site-item__meta">
          <span className="site-item__code">{site.code}</span>
          <span className={`site-link site-link--${link}`}>
            {link === 'none'
              ? t('devices.siteStatus.none')
              : t('devices.gatewaysOnline', { online: site.onlineGateways, total: site.gateways })}
          </span>
        </span>
        <span className="site-item__figures">
          <span>{t('devices.deviceCount', { count: site.deviceCount })}</span>
          <span>{formatQuantity(site.capacityKwh, 'kWh')}</span>
          <span>{formatQuantity(site.ratedPowerKw, 'kW')}</span>
        </span>
      </button>
    </li>
  );
}

/** The site list; see the module comment. */
export function SiteList({ selected, onSelect, onLoaded, onAdd }: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const keyword = useDebounced(search.trim(), 300);
  const [pageNum, setPageNum] = useState(1);
  // A new search starts at the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on keyword change only
  useEffect(() => setPageNum(1), [keyword]);

  const q = { pageNum, pageSize: SITE_PAGE_SIZE, ...(keyword ? { keyword } : {}) };
  const query = useQuery({
    queryKey: registryKeys.sites(q),
    queryFn: () => fetchSites(q),
    placeholderData: keepPreviousData,
  });
  const sites = query.data?.list;
  useEffect(() => {
    if (sites) onLoaded(sites);
  }, [sites, onLoaded]);

  const total = query.data?.total ?? 0;

  return (
    <section className="site-panel" aria-label={t('devices.sites')}>
      <div className="site-panel__head">
        <h2 className="panel-title">
          {t('devices.sites')}
          {query.data && <span className="panel-title__count">{total}</span>}
        </h2>
        {onAdd && (
          <Button type="primary" size="small" icon={<PlusOutlined />} onClick={onAdd} data-testid="site-add">
            {t('devices.addSite')}
          </Button>
        )}
      </div>
      <Input
        allowClear
        prefix={<SearchOutlined />}
        placeholder={t('devices.siteSearch')}
        value={search}
        onChange={(e) => setSearch(e.target.value)}
        className="site-panel__search"
        data-testid="site-search"
      />
      {query.isLoading ? (
        <Skeleton active paragraph={{ rows: 5 }} />
      ) : (
        <ul className="site-list" data-testid="site-list">
          {!keyword && (sites?.length ?? 0) > 0 && (
            <li>
              <button
                type="button"
                className={selected === 'all' ? 'site-item site-item--active' : 'site-item'}
                onClick={() => onSelect('all', null)}
                aria-pressed={selected === 'all'}
                data-testid="site-item-all"
              >
                <span className="site-item__head">
                  <span className="site-item__name">{t('devices.allSites')}</span>
                </span>
                <span className="site-item__meta">{t('devices.allSitesHint')}</span>
              </button>
            </li>
          )}
          {sites?.map((site) => (
            <SiteItem
              key={site.id}
              site={site}
              active={selected === site.id}
              onClick={() => onSelect(site.id, site)}
            />
          ))}
          {sites && sites.length === 0 && (
            <li className="site-list__empty">
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={keyword ? t('devices.noSiteMatch') : t('devices.noSites')}
              >
                {!keyword && onAdd && (
                  <Button type="primary" icon={<PlusOutlined />} onClick={onAdd}>
                    {t('devices.addSite')}
                  </Button>
                )}
              </Empty>
            </li>
          )}
        </ul>
      )}
      {total > SITE_PAGE_SIZE && (
        <Pagination
          simple
          size="small"
          current={pageNum}
          pageSize={SITE_PAGE_SIZE}
          total={total}
          onChange={setPageNum}
          className="site-panel__pager"
        />
      )}
    </section>
  );
}
