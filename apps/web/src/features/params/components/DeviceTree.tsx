/**
 * Left column of the parameter screen: a search (site name or code, device SN: sent to the
 * server as `keyword`) and the tree site → gateway → devices behind it (`params/tree`). Each
 * device shows its online dot, type, SN and model, how many keys are out of sync and a drift
 * mark (the model in the SN's tooltip); a site not yet initialized says so. Choosing a device opens its parameters.
 * Test hooks: `params-tree` (the tree), `params-tree-search`, `params-tree-refresh`,
 * `params-tree-site-<siteId>`, `params-tree-device-<deviceId>` (`data-online`, `data-drift`).
 */
import type { ParamsTreeDevice, ParamsTreeSite } from '@ess/contract';
import { Badge, Empty, Skeleton, Tag, Tooltip, Tree, type TreeDataNode } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TYPE_COLOR, typeLabel } from '@/shared/devices';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { nestDevices } from '../model';

interface Props {
  sites: readonly ParamsTreeSite[] | undefined;
  loading: boolean;
  fetching: boolean;
  keyword: string;
  onSearch: (keyword: string) => void;
  onRefresh: () => void;
  selected: number | null;
  onSelect: (deviceId: number) => void;
}

function DeviceTitle({ device }: { device: ParamsTreeDevice }) {
  const { t } = useTranslation();
  return (
    <span
      className="params-tree__device"
      data-testid={`params-tree-device-${device.deviceId}`}
      data-online={device.online}
      data-drift={device.drift}
    >
      <Tooltip title={device.online ? t('params.online') : t('params.offline')}>
        <span
          className={`params-dot ${device.online ? 'params-dot--online' : 'params-dot--offline'}`}
          role="img"
          aria-label={device.online ? t('params.online') : t('params.offline')}
        />
      </Tooltip>
      <Tag color={TYPE_COLOR[device.type]} className="params-tree__type">
        {typeLabel(t, device.type)}
      </Tag>
      <Tooltip title={device.model ? t('params.tree.model', { model: device.model }) : t('params.noModel')}>
        <span className="params-tree__sn">{device.sn}</span>
      </Tooltip>
      {device.drift && (
        <Tooltip title={t('params.tree.driftHint')}>
          <Tag color="magenta" className="params-tree__mark">
            {t('params.tree.drift')}
          </Tag>
        </Tooltip>
      )}
      {device.outOfSync > 0 && (
        <Tooltip title={t('params.tree.outOfSync', { count: device.outOfSync })}>
          <Badge count={device.outOfSync} size="small" color="gold" className="params-tree__mark" />
        </Tooltip>
      )}
    </span>
  );
}

function SiteTitle({ site }: { site: ParamsTreeSite }) {
  const { t } = useTranslation();
  return (
    <span className="params-tree__site" data-testid={`params-tree-site-${site.siteId}`}>
      <span className="params-tree__site-name">{site.siteName}</span>
      {site.initializedAt === null && (
        <Tag className="params-tree__mark" color="orange">
          {t('params.tree.notInitialized')}
        </Tag>
      )}
      <span className="params-muted params-tree__company">{site.companyName}</span>
    </span>
  );
}

export function DeviceTree({
  sites,
  loading,
  fetching,
  keyword,
  onSearch,
  onRefresh,
  selected,
  onSelect,
}: Props) {
  const { t } = useTranslation();
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());

  const { treeData, parents } = useMemo(() => {
    const parents: string[] = [];
    const treeData: TreeDataNode[] = (sites ?? []).map((site) => {
      const siteKey = `s-${site.siteId}`;
      parents.push(siteKey);
      return {
        key: siteKey,
        selectable: false,
        title: <SiteTitle site={site} />,
        children: nestDevices(site.devices).map(({ device, children }) => {
          const key = `d-${device.deviceId}`;
          if (children.length > 0) parents.push(key);
          return {
            key,
            title: <DeviceTitle device={device} />,
            children: children.map((c) => ({
              key: `d-${c.deviceId}`,
              title: <DeviceTitle device={c} />,
              isLeaf: true,
            })),
            isLeaf: children.length === 0,
          };
        }),
      };
    });
    return { treeData, parents };
  }, [sites]);

  const count = (sites ?? []).reduce((n, s) => n + s.devices.length, 0);

  return (
    <section className="params-panel params-tree" aria-label={t('params.tree.title')}>
      <h2 className="params-panel__title">
        {t('params.tree.title')}
        {sites && <span className="params-panel__count">{count}</span>}
      </h2>
      <ListToolbar
        className="params-tree__toolbar"
        keyword={{
          onSearch,
          placeholder: t('params.tree.search'),
          className: 'params-tree__search',
          testId: 'params-tree-search',
        }}
        refresh={{ loading: fetching, onClick: onRefresh, testId: 'params-tree-refresh' }}
      />
      {loading ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : treeData.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={keyword ? t('params.tree.noMatch') : t('params.tree.empty')}
        />
      ) : (
        <div className="params-tree__scroll">
          <Tree
            blockNode
            showLine={false}
            treeData={treeData}
            expandedKeys={parents.filter((k) => !collapsed.has(k))}
            onExpand={(_, info) => {
              const key = String(info.node.key);
              setCollapsed((cur) => {
                const next = new Set(cur);
                if (info.expanded) next.delete(key);
                else next.add(key);
                return next;
              });
            }}
            selectedKeys={selected === null ? [] : [`d-${selected}`]}
            onSelect={(_, info) => {
              const key = String(info.node.key);
              if (key.startsWith('d-')) onSelect(Number(key.slice(2)));
            }}
            data-testid="params-tree"
          />
        </div>
      )}
    </section>
  );
}
