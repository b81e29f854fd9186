/**
 * "Move to site" (`device/moveSite`, permission device:device:move): the explicit way a device
 * changes site. The dialog shows the device and its current site, offers every other site the
 * caller may see, and — once a target is chosen — says in one sentence what will move from where
 * to where, before the operator confirms with "Move":
 * - a gateway takes every device behind it along (listed by SN); the target site's ToU scheme is
 *   sent to it again;
 * - a device behind a gateway must report through a gateway of the target site (chosen here;
 *   3040 marks the field otherwise);
 * - the device's history and alarms go with it; a target site of another company means the old
 *   company no longer sees it.
 * Test hooks: `move-device-dialog`, `move-device-from`, `move-device-site`,
 * `move-device-gateway`, `move-device-behind`, `move-device-confirm`, `move-device-submit`.
 */
import { type DeviceRow, ErrorCode, type SiteRow } from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Form, Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '@/shared/api/errors';
import { typeLabel } from '@/shared/devices';
import { showSuccess } from '@/shared/feedback';
import { catalogueText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { fetchDevicesBehind, fetchGateways, moveDeviceToSite, registryKeys } from '../api';
import { SiteSelect } from './SiteSelect';

interface Values {
  siteId?: number;
  gatewayId?: number;
}

interface Props {
  /** The device to move; null = closed. */
  device: DeviceRow | null;
  /** The device's current site, when the page knows its row (names its company). */
  currentSite: SiteRow | null;
  onClose: () => void;
}

/** The dialog; see the module comment. */
export function MoveDeviceDialog({ device, currentSite, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const siteId = Form.useWatch('siteId', form);
  const [target, setTarget] = useState<SiteRow | null>(null);
  const open = device !== null;
  const isGateway = device?.gatewayId === null;

  useEffect(() => {
    if (open) setTarget(null);
  }, [open]);

  const behind = useQuery({
    queryKey: registryKeys.behind(device?.siteId ?? 0, device?.id ?? 0),
    queryFn: () => fetchDevicesBehind(device!.siteId, device!.id),
    enabled: open && isGateway,
  });
  const gateways = useQuery({
    queryKey: registryKeys.gateways(siteId ?? 0),
    queryFn: () => fetchGateways(siteId!),
    enabled: open && !isGateway && siteId !== undefined,
  });
  // Another target site: its gateways, not the previous one's.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the target changes
  useEffect(() => form.setFieldValue('gatewayId', undefined), [siteId, form]);

  const mutation = useMutation({
    mutationFn: (values: Values) =>
      moveDeviceToSite(device!.id, values.siteId!, isGateway ? null : (values.gatewayId ?? null)),
    onSuccess: () => {
      showSuccess(t('devices.move.done', { sn: device!.sn, site: target?.name ?? '' }));
      void queryClient.invalidateQueries({ queryKey: registryKeys.all });
      onClose();
    },
    onError: (err) => {
      if (isApiError(err) && err.code === ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE) {
        form.setFields([{ name: 'gatewayId', errors: [catalogueText(err.code)] }]);
      }
    },
  });

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    mutation.mutate(values);
  };

  const behindSns = (behind.data ?? []).map((d) => d.sn);
  const chosen = target && target.id === siteId ? target : null;
  const fromCompany = currentSite?.companyName;
  const otherCompany = chosen !== null && chosen.companyId !== device?.companyId;

  return (
    <FormDialog
      open={open}
      title={device ? t('devices.move.toSiteTitle', { sn: device.sn }) : ''}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      okText={t('devices.move.submit')}
      okDisabled={chosen === null}
      testId="move-device-dialog"
      submitTestId="move-device-submit"
    >
      {device && (
        <Form<Values> form={form} layout="vertical" onFinish={() => void submit()} className="registry-form">
          <dl className="move-facts" data-testid="move-device-from">
            <div>
              <dt>{t('devices.move.device')}</dt>
              <dd>
                {device.sn} · {typeLabel(t, device.type)}
                {isGateway ? ` · ${t('devices.gatewayRole')}` : ''}
              </dd>
            </div>
            <div>
              <dt>{t('devices.move.from')}</dt>
              <dd>
                {device.siteName}
                {fromCompany ? ` · ${fromCompany}` : ''}
              </dd>
            </div>
          </dl>
          <Form.Item<Values>
            name="siteId"
            label={t('devices.move.to')}
            rules={[{ required: true, message: t('devices.move.siteRequired') }]}
          >
            <SiteSelect exclude={device.siteId} onPick={setTarget} testId="move-device-site" />
          </Form.Item>
          {isGateway ? (
            <p className="move-behind" data-testid="move-device-behind">
              {behindSns.length > 0
                ? t('devices.move.behind', {
                    list: behindSns.join(t('devices.move.separator')),
                    count: behindSns.length,
                  })
                : t('devices.move.behindNone')}
            </p>
          ) : (
            <Form.Item<Values>
              name="gatewayId"
              label={t('devices.move.gateway')}
              extra={t('devices.move.gatewayHint')}
              rules={[{ required: true, message: t('devices.move.gatewayRequired') }]}
            >
              <Select
                options={(gateways.data ?? []).map((g) => ({
                  value: g.id,
                  label: `${g.sn} · ${typeLabel(t, g.type)}${g.online ? '' : ` (${t('devices.offline')})`}`,
                }))}
                loading={gateways.isFetching}
                disabled={siteId === undefined}
                placeholder={t('devices.move.gatewayRequired')}
                notFoundContent={t('devices.noGateways')}
                data-testid="move-device-gateway"
              />
            </Form.Item>
          )}
          {chosen && (
            <Alert
              className="registry-form__alert"
              type="warning"
              showIcon
              data-testid="move-device-confirm"
              title={t(
                isGateway && behindSns.length > 0 ? 'devices.move.confirmWith' : 'devices.move.confirm',
                {
                  sn: device.sn,
                  from: device.siteName,
                  to: chosen.name,
                  count: behindSns.length,
                },
              )}
              description={
                <ul className="move-consequences">
                  <li>{t('devices.move.dataFollows')}</li>
                  {otherCompany && <li>{t('devices.move.otherCompany', { company: chosen.companyName })}</li>}
                  {isGateway && <li>{t('devices.move.touResend')}</li>}
                </ul>
              }
            />
          )}
          <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
        </Form>
      )}
    </FormDialog>
  );
}
