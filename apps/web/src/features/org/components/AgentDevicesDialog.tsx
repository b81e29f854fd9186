/**
 * Assign devices to an agent (700 px, spec §9; the two lists stack on phones): an antd Transfer
 * with, on the left, the devices in the caller's scope that no agent has and, on the right, the
 * devices assigned to this agent (`agent/devices`). Moving right calls `agent/assignDevices`,
 * moving left `agent/unassignDevices`; the lists and the agent's count reload afterwards.
 * Devices bound to a project cannot change agent: they are disabled, with a tooltip (6004).
 * A device assigned meanwhile to another agent answers 6003 with the server's message.
 * Test hooks: `agent-devices-dialog`, `agent-devices-transfer`, items `agent-device-<id>`,
 * `agent-devices-close`.
 */
import { type AgentDevice, type CompanyRow, deviceTypeLabel } from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Modal, Tooltip, Transfer, type TransferProps } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { currentLang } from '@/shared/i18n';
import { fetchAgentDevices, moveAgentDevices, orgKeys } from '../api';

interface Item extends AgentDevice {
  key: number;
  disabled: boolean;
}

interface Props {
  /** The agent whose devices are shown; null = closed. */
  agent: CompanyRow | null;
  onClose: () => void;
}

/** The device assignment dialog; see the module comment. */
export function AgentDevicesDialog({ agent, onClose }: Props) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const agentId = agent?.id ?? 0;

  const query = useQuery({
    queryKey: orgKeys.agentDevices(agentId),
    queryFn: () => fetchAgentDevices(agentId),
    enabled: agent !== null,
  });

  const items = useMemo<Item[]>(
    () =>
      [...(query.data?.assigned ?? []), ...(query.data?.available ?? [])].map((d) => ({
        ...d,
        key: d.id,
        disabled: d.projectBound,
      })),
    [query.data],
  );
  const targetKeys = useMemo(() => query.data?.assigned.map((d) => d.id) ?? [], [query.data]);

  const move = useMutation({
    mutationFn: ({ ids, assign }: { ids: number[]; assign: boolean }) =>
      moveAgentDevices(agentId, ids, assign),
    onSuccess: (_, { ids, assign }) => {
      showSuccess(t(assign ? 'org.assign.assignedDone' : 'org.assign.unassignedDone', { count: ids.length }));
    },
    // Reload after failures too: a refused batch may follow accepted ones (calls of 500 ids).
    onSettled: () => queryClient.invalidateQueries({ queryKey: orgKeys.all }),
  });

  const onChange: TransferProps<Item>['onChange'] = (_, direction, moveKeys) => {
    if (moveKeys.length === 0) return;
    move.mutate({ ids: moveKeys.map(Number), assign: direction === 'right' });
  };

  const typeText = (type: string) => deviceTypeLabel(type, currentLang());

  const render = (d: Item) => {
    const meta = [typeText(d.type), d.siteName, d.companyName].filter(Boolean).join(' · ');
    const content = (
      <span className="agent-device" data-testid={`agent-device-${d.id}`}>
        <span className="agent-device__sn">{d.sn}</span>
        <span className="agent-device__meta" title={meta}>
          {meta}
        </span>
      </span>
    );
    return d.projectBound ? (
      <Tooltip title={t('org.assign.projectBound')} placement="topLeft">
        {content}
      </Tooltip>
    ) : (
      content
    );
  };

  return (
    <Modal
      open={agent !== null}
      title={t('org.assign.title', { name: agent?.name ?? '' })}
      width={DIALOG_WIDTH_PX}
      onCancel={onClose}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose} data-testid="agent-devices-close">
          {t('org.assign.close')}
        </Button>
      }
    >
      <div data-testid="agent-devices-dialog" className="agent-devices">
        <p className="agent-devices__hint">{t('org.assign.hint')}</p>
        <Transfer<Item>
          data-testid="agent-devices-transfer"
          className="agent-devices__transfer"
          dataSource={items}
          targetKeys={targetKeys}
          onChange={onChange}
          render={render}
          disabled={query.isLoading || move.isPending}
          titles={[t('org.assign.available'), t('org.assign.assigned')]}
          showSearch={{ placeholder: t('org.assign.search') }}
          filterOption={(input, d) => {
            const needle = input.trim().toLowerCase();
            return [d.sn, d.siteName, d.companyName, typeText(d.type)].some((v) =>
              v.toLowerCase().includes(needle),
            );
          }}
          pagination={items.length > 200}
        />
      </div>
    </Modal>
  );
}
