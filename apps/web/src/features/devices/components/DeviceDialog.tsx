/**
 * Add / edit a device (700 px, spec §9). Rules mirror the server's `deviceInput`:
 * SN 4–40 of A–Z a–z 0–9 _ - (contract `SN_PATTERN`); a type; model ≤ 64; rated power (kW) and
 * capacity (kWh) > 0 when given (spec §5 "number must be greater than 0"); connection address a
 * dotted IPv4 (spec §5 "please enter the correct Ip address"); port an integer 1–65535.
 *
 * Adding, the dialog names the site the device is added to — in its title and beside the site
 * select, with the site's company — and the select (every site the caller may see, searched on
 * the server) starts on the site selected on the page (`defaultSite`). Editing, the site is
 * shown, not chosen: a device changes site only through "move to site" (MoveDeviceDialog).
 *
 * The gateway select lists only the gateways of the chosen site. Left empty, the device is a
 * gateway with its own MQTT connection: it gets a secret on creation, which the parent shows
 * once (`onSecret`). A taken SN (3032) marks the SN field; a gateway that still has devices
 * behind it cannot become a sub-device (3038) and marks the gateway field.
 * Test hooks: `device-dialog`, `device-dialog-title`, `device-site`, `device-site-name` (edit),
 * `device-sn`, `device-type`, `device-model`, `device-gateway`, `device-rated-power`,
 * `device-capacity`, `device-client-id`, `device-address`, `device-port`, `device-submit`.
 */
import {
  DEVICE_TYPES,
  type DeviceRow,
  type DeviceType,
  ErrorCode,
  isValidIpv4,
  type SiteRow,
  SN_PATTERN,
  TEXT_LIMITS,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Form, Input, InputNumber, Select } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '@/shared/api/errors';
import { typeLabel } from '@/shared/devices';
import { showSuccess } from '@/shared/feedback';
import { catalogueText, validationText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { type DeviceForm, type DeviceSecret, fetchGateways, registryKeys, saveDevice } from '../api';
import { SiteSelect } from './SiteSelect';

/** Upper bounds of the server (contract `deviceInput`). */
const MAX_RATED_POWER_KW = 1_000_000;
const MAX_CAPACITY_KWH = 10_000_000;

interface Values {
  siteId?: number;
  sn: string;
  type?: DeviceType;
  model?: string;
  gatewayId?: number | null;
  ratedPowerKw?: number | null;
  capacityKwh?: number | null;
  mqttClientId?: string;
  connAddress?: string;
  connPort?: number | null;
}

interface Props {
  open: boolean;
  /** The device to edit; none to add one. */
  device: DeviceRow | null;
  /** Site preselected when adding: the one selected on the page (none for "all sites"). */
  defaultSite: SiteRow | null;
  onClose: () => void;
  /** A new gateway's credentials, to be shown once. */
  onSecret: (secret: DeviceSecret) => void;
}

const reject = (text: string) => Promise.reject(new Error(text));

/** `> 0` and at most `max` when given (spec §5). */
function positive(max: number, tooLarge: string) {
  return (_: unknown, v: number | null | undefined) => {
    if (v === null || v === undefined) return Promise.resolve();
    if (!(v > 0)) return reject(validationText('numberPositive'));
    if (v > max) return reject(tooLarge);
    return Promise.resolve();
  };
}

/** The device dialog; see the module comment. */
export function DeviceDialog({ open, device, defaultSite, onClose, onSecret }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const chosenSiteId = Form.useWatch('siteId', form);
  // Editing, the device stays on its site (its gateways are offered).
  const siteId = device ? device.siteId : chosenSiteId;
  const gatewayId = Form.useWatch('gatewayId', form);
  const sn = Form.useWatch('sn', form);
  const isGateway = gatewayId === null || gatewayId === undefined;
  // The site the new device goes to, as chosen (named in the title and beside the select).
  const [picked, setPicked] = useState<SiteRow | null>(null);

  // The form is filled when the dialog opens, not again when the page refreshes the site's row.
  const defaultSiteRef = useRef(defaultSite);
  defaultSiteRef.current = defaultSite;
  const defaultSiteId = defaultSite?.id;
  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(
      device
        ? {
            sn: device.sn,
            type: device.type,
            model: device.model ?? undefined,
            gatewayId: device.gatewayId,
            ratedPowerKw: device.ratedPowerKw,
            capacityKwh: device.capacityKwh,
            mqttClientId: device.mqttClientId ?? undefined,
            connAddress: device.connAddress ?? undefined,
            connPort: device.connPort,
          }
        : // A site's first device is usually its EMS, the gateway (docs/device-protocol.md).
          { siteId: defaultSiteId, gatewayId: null, type: 'ems' },
    );
    setPicked(device ? null : defaultSiteRef.current);
  }, [open, device, defaultSiteId, form]);

  const gateways = useQuery({
    queryKey: registryKeys.gateways(siteId ?? 0),
    queryFn: () => fetchGateways(siteId!),
    enabled: open && siteId !== undefined,
  });
  const gatewayOptions = useMemo(
    () =>
      (gateways.data ?? [])
        .filter((g) => g.id !== device?.id)
        .map((g) => ({
          value: g.id,
          label: `${g.sn} · ${typeLabel(t, g.type)}${g.online ? '' : ` (${t('devices.offline')})`}`,
        })),
    [gateways.data, device, t],
  );

  // A gateway from another site cannot stay selected when the site changes.
  useEffect(() => {
    if (!gateways.data || gatewayId === null || gatewayId === undefined) return;
    if (!gateways.data.some((g) => g.id === gatewayId)) form.setFieldValue('gatewayId', null);
  }, [gateways.data, gatewayId, form]);

  const known = useMemo(() => (defaultSite ? [defaultSite] : []), [defaultSite]);
  const pickedSite = picked && picked.id === siteId ? picked : null;

  const typeOptions = DEVICE_TYPES.map((type) => ({ value: type, label: typeLabel(t, type) }));

  const mutation = useMutation({
    mutationFn: (values: DeviceForm) => saveDevice(values, device?.id),
    onSuccess: ({ secret }) => {
      showSuccess(t('devices.deviceSaved'));
      void queryClient.invalidateQueries({ queryKey: registryKeys.all });
      onClose();
      if (secret) onSecret(secret);
    },
    onError: (err) => {
      if (!isApiError(err)) return;
      if (err.code === ErrorCode.DEVICE_SN_EXISTS)
        form.setFields([{ name: 'sn', errors: [catalogueText(ErrorCode.DEVICE_SN_EXISTS)] }]);
      if (err.code === ErrorCode.GATEWAY_HAS_DEVICES || err.code === ErrorCode.DEVICE_NOT_FOUND) {
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
    const gateway = values.gatewayId ?? null;
    mutation.mutate({
      siteId: siteId!,
      sn: values.sn.trim(),
      type: values.type!,
      model: values.model?.trim() || null,
      gatewayId: gateway,
      ratedPowerKw: values.ratedPowerKw ?? null,
      capacityKwh: values.capacityKwh ?? null,
      mqttClientId: gateway === null ? values.mqttClientId?.trim() || null : null,
      connAddress: values.connAddress?.trim() || null,
      connPort: values.connPort ?? null,
    });
  };

  const becomesSubDevice = device !== null && device.gatewayId === null && !isGateway;
  const becomesGateway = device !== null && device.gatewayId !== null && isGateway;

  const title = device
    ? t('devices.editDevice')
    : pickedSite
      ? t('devices.addDeviceTo', { site: pickedSite.name })
      : t('devices.addDevice');

  return (
    <FormDialog
      open={open}
      title={<span data-testid="device-dialog-title">{title}</span>}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="device-dialog"
      submitTestId="device-submit"
    >
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()} className="registry-form">
        <div className="registry-form__row">
          {device ? (
            <Form.Item<Values> label={t('devices.field.site')} extra={t('devices.siteHintEdit')}>
              <span className="registry-form__static" data-testid="device-site-name">
                {device.siteName}
              </span>
            </Form.Item>
          ) : (
            <Form.Item<Values>
              name="siteId"
              label={t('devices.field.addToSite')}
              extra={pickedSite ? t('devices.siteHintAdd', { company: pickedSite.companyName }) : undefined}
              rules={[{ required: true, message: t('devices.rule.siteRequired') }]}
            >
              <SiteSelect known={known} onPick={setPicked} testId="device-site" />
            </Form.Item>
          )}
          <Form.Item<Values>
            name="type"
            label={t('devices.field.type')}
            rules={[{ required: true, message: t('devices.rule.typeRequired') }]}
          >
            <Select
              options={typeOptions}
              placeholder={t('devices.placeholder.type')}
              data-testid="device-type"
            />
          </Form.Item>
        </div>
        <div className="registry-form__row">
          <Form.Item<Values>
            name="sn"
            label={t('devices.field.sn')}
            rules={[
              { required: true, whitespace: true, message: t('devices.rule.snRequired') },
              { pattern: SN_PATTERN, message: t('devices.rule.snFormat') },
            ]}
          >
            <Input
              maxLength={TEXT_LIMITS.deviceSn}
              autoComplete="off"
              spellCheck={false}
              placeholder={t('devices.rule.snFormat')}
              data-testid="device-sn"
            />
          </Form.Item>
          <Form.Item<Values> name="model" label={t('devices.field.model')}>
            <Input maxLength={TEXT_LIMITS.deviceModel} data-testid="device-model" />
          </Form.Item>
        </div>
        <Form.Item<Values>
          name="gatewayId"
          label={t('devices.field.gateway')}
          extra={isGateway ? t('devices.gatewayHint') : t('devices.gatewayHintBehind')}
        >
          <Select
            allowClear
            options={gatewayOptions}
            loading={gateways.isFetching}
            disabled={siteId === undefined}
            placeholder={t('devices.gatewayNone')}
            notFoundContent={t('devices.noGateways')}
            onClear={() => form.setFieldValue('gatewayId', null)}
            data-testid="device-gateway"
          />
        </Form.Item>
        {becomesSubDevice && (
          <Alert
            className="registry-form__alert"
            type="warning"
            showIcon
            title={t('devices.becomesSubDevice')}
          />
        )}
        {becomesGateway && (
          <Alert className="registry-form__alert" type="info" showIcon title={t('devices.becomesGateway')} />
        )}
        <div className="registry-form__row">
          <Form.Item<Values>
            name="ratedPowerKw"
            label={t('devices.field.ratedPower')}
            extra={t('devices.ratedPowerHint')}
            rules={[
              {
                validator: positive(
                  MAX_RATED_POWER_KW,
                  t('devices.rule.tooLarge', { max: MAX_RATED_POWER_KW }),
                ),
              },
            ]}
          >
            <InputNumber className="registry-form__number" suffix="kW" data-testid="device-rated-power" />
          </Form.Item>
          <Form.Item<Values>
            name="capacityKwh"
            label={t('devices.field.capacity')}
            extra={t('devices.capacityHint')}
            rules={[
              {
                validator: positive(MAX_CAPACITY_KWH, t('devices.rule.tooLarge', { max: MAX_CAPACITY_KWH })),
              },
            ]}
          >
            <InputNumber className="registry-form__number" suffix="kWh" data-testid="device-capacity" />
          </Form.Item>
        </div>
        {isGateway && (
          <Form.Item<Values>
            name="mqttClientId"
            label={t('devices.field.mqttClientId')}
            extra={t('devices.mqttClientIdHint')}
          >
            <Input
              maxLength={TEXT_LIMITS.mqttClientId}
              autoComplete="off"
              spellCheck={false}
              placeholder={sn?.trim() || undefined}
              data-testid="device-client-id"
            />
          </Form.Item>
        )}
        <div className="registry-form__row">
          <Form.Item<Values>
            name="connAddress"
            label={t('devices.field.connAddress')}
            rules={[
              {
                validator: (_, v: string | undefined) =>
                  !v?.trim() || isValidIpv4(v.trim())
                    ? Promise.resolve()
                    : reject(validationText('ipInvalid')),
              },
            ]}
          >
            <Input placeholder="192.168.1.10" autoComplete="off" data-testid="device-address" />
          </Form.Item>
          <Form.Item<Values>
            name="connPort"
            label={t('devices.field.connPort')}
            rules={[
              {
                validator: (_, v: number | null | undefined) =>
                  v === null || v === undefined || (Number.isInteger(v) && v >= 1 && v <= 65535)
                    ? Promise.resolve()
                    : reject(t('devices.rule.port')),
              },
            ]}
          >
            <InputNumber className="registry-form__number" placeholder="502" data-testid="device-port" />
          </Form.Item>
        </div>
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
