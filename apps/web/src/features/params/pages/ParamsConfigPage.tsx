/**
 * Parameter configuration `/paramsconfig` (spec §2, issue 15 item 4; view
 * `device/paramsconfig/index`, menu 210, device:params:list): the tree site → devices on the
 * left ({@link DeviceTree}), the chosen device's parameters on the right ({@link DevicePanel}):
 * what we want beside what the device runs, per-key delivery states, changes with a
 * confirmation, reading from the device, history, copying to devices of the same model and the
 * site's one-time initialization. Buttons that change something need device:params:edit.
 *
 * Live: the page listens to `delivery:params` (contract api/live.ts): a message about the open
 * device reads it (and its history) again, any message reads the tree again (its out-of-sync
 * counts and drift marks); when the live socket comes back everything is read again, changes
 * may have been missed meanwhile. Times are in the device's site zone. Below 992 px the two
 * columns stack, and a device chosen in the tree scrolls its parameters into view.
 * Test hooks: `paramsconfig`, `params-empty` (and those of the components).
 */
import { Perm } from '@ess/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Empty } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { TimeBaseProvider } from '@/shared/format/time-base';
import { useLiveMessages } from '@/shared/live';
import { fetchTree, paramsKeys } from '../api';
import { DevicePanel } from '../components/DevicePanel';
import { DeviceTree } from '../components/DeviceTree';
import { type TreeDevice, treeDevices } from '../model';
import '../params.css';

export default function ParamsConfigPage() {
  const { t } = useTranslation();
  const canEdit = usePermission(Perm.paramsEdit);
  const queryClient = useQueryClient();
  const [keyword, setKeyword] = useState('');
  const tree = useQuery({
    queryKey: paramsKeys.tree(keyword),
    queryFn: () => fetchTree(keyword),
    placeholderData: keepPreviousData,
  });
  const sites = tree.data?.sites;
  const devices = useMemo(() => treeDevices(sites ?? []), [sites]);

  // The chosen device as last seen in the tree (kept while a search hides it).
  const [chosen, setChosen] = useState<TreeDevice | null>(null);
  const selected = (chosen && devices.find((d) => d.deviceId === chosen.deviceId)) ?? chosen;
  useEffect(() => {
    // First visit: the first device.
    if (!chosen && devices[0]) setChosen(devices[0]);
  }, [chosen, devices]);

  // Stacked (below 992 px): a device chosen in the tree brings its parameters into view.
  const [reveal, setReveal] = useState(0);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (reveal > 0 && window.matchMedia('(max-width: 991px)').matches) {
      panel.current?.scrollIntoView({ block: 'start' });
    }
  }, [reveal]);

  const selectedId = selected?.deviceId ?? null;
  const status = useLiveMessages('delivery:params', (change) => {
    void queryClient.invalidateQueries({ queryKey: paramsKeys.trees });
    if (change.deviceId !== null && change.deviceId === selectedId) {
      void queryClient.invalidateQueries({ queryKey: paramsKeys.device(change.deviceId) });
      void queryClient.invalidateQueries({ queryKey: paramsKeys.history(change.deviceId) });
    }
  });
  const wasLive = useRef(status === 'live');
  useEffect(() => {
    const live = status === 'live';
    if (live && !wasLive.current) void queryClient.invalidateQueries({ queryKey: paramsKeys.all });
    wasLive.current = live;
  }, [status, queryClient]);

  return (
    <div className="params-page" data-testid="paramsconfig">
      <DeviceTree
        sites={sites}
        loading={tree.isLoading}
        fetching={tree.isFetching}
        keyword={keyword}
        onSearch={setKeyword}
        onRefresh={() => void queryClient.invalidateQueries({ queryKey: paramsKeys.all })}
        selected={selectedId}
        onSelect={(id) => {
          const device = devices.find((d) => d.deviceId === id);
          if (!device) return;
          setChosen(device);
          setReveal((n) => n + 1);
        }}
      />
      {selected ? (
        <div ref={panel} className="params-page__main">
          <TimeBaseProvider timeZone={selected.site.timezone}>
            <DevicePanel key={selected.deviceId} device={selected} sites={sites ?? []} canEdit={canEdit} />
          </TimeBaseProvider>
        </div>
      ) : (
        <section className="params-panel params-main params-main--empty" data-testid="params-empty">
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={tree.isLoading ? null : t('params.selectDevice')}
          />
        </section>
      )}
    </div>
  );
}
