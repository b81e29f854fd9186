/**
 * "Move to company" (`site/moveCompany`, permission device:site:move): the explicit way a site
 * changes company. The operator picks a company (any the caller may see); the server's preview
 * (`site/moveCompanyPreview`, the same rule as the move) then says what happens before "Move" is
 * possible: the site goes from one company to the other with its devices, alarms (how many still
 * active) and history; who sees it afterwards; and whether its ToU scheme stays or — belonging to
 * a company the new one is not below — is taken off the site (the EMS keeps its last plan).
 * Test hooks: `move-site-dialog`, `move-site-from`, `move-site-company`, `move-site-confirm`,
 * `move-site-scheme`, `move-site-submit`.
 */
import type { SiteRow } from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Form, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { CompanyPicker } from '@/features/org-people';
import { showSuccess } from '@/shared/feedback';
import { FormDialog } from '@/shared/ui/FormDialog';
import { moveSiteToCompany, registryKeys } from '../api';

interface Values {
  companyId?: number;
}

interface Props {
  /** The site to move; null = closed. */
  site: SiteRow | null;
  onClose: () => void;
}

/** The dialog; see the module comment. */
export function MoveSiteDialog({ site, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const companyId = Form.useWatch('companyId', form);
  const open = site !== null;
  const elsewhere = site !== null && companyId !== undefined && companyId !== site.companyId;

  const preview = useQuery({
    queryKey: registryKeys.siteMove(site?.id ?? 0, companyId ?? 0),
    queryFn: () => moveSiteToCompany(site!.id, companyId!, { preview: true }),
    enabled: open && elsewhere,
    staleTime: 0,
    gcTime: 0,
  });

  const mutation = useMutation({
    mutationFn: () => moveSiteToCompany(site!.id, companyId!, { preview: false }),
    onSuccess: (outcome) => {
      showSuccess(t('devices.move.siteDone', { site: site!.name, company: outcome.to.name }));
      void queryClient.invalidateQueries({ queryKey: registryKeys.all });
      onClose();
    },
  });

  const outcome = elsewhere ? preview.data : undefined;
  const scheme = outcome?.touScheme ?? null;

  return (
    <FormDialog
      open={open}
      title={site ? t('devices.move.toCompanyTitle', { name: site.name }) : ''}
      form={form}
      saving={mutation.isPending}
      onOk={() => mutation.mutate()}
      onCancel={onClose}
      okText={t('devices.move.submit')}
      okDisabled={outcome === undefined}
      testId="move-site-dialog"
      submitTestId="move-site-submit"
    >
      {site && (
        <Form<Values> form={form} layout="vertical" className="registry-form">
          <dl className="move-facts" data-testid="move-site-from">
            <div>
              <dt>{t('devices.move.site')}</dt>
              <dd>
                {site.name} ({site.code})
              </dd>
            </div>
            <div>
              <dt>{t('devices.move.fromCompany')}</dt>
              <dd>{site.companyName}</dd>
            </div>
          </dl>
          <Form.Item<Values>
            name="companyId"
            label={t('devices.move.targetCompany')}
            extra={companyId === site.companyId ? t('devices.move.sameCompany') : undefined}
          >
            <CompanyPicker
              showSingle
              placeholder={t('devices.move.companyRequired')}
              className="registry-form__company"
              testId="move-site-company"
            />
          </Form.Item>
          {elsewhere && preview.isLoading && <Skeleton active paragraph={{ rows: 2 }} />}
          {outcome && (
            <Alert
              className="registry-form__alert"
              type="warning"
              showIcon
              data-testid="move-site-confirm"
              title={t('devices.move.siteConfirm', {
                site: site.name,
                from: outcome.from.name,
                to: outcome.to.name,
              })}
              description={
                <ul className="move-consequences">
                  <li>
                    {t('devices.move.siteFollows', {
                      to: outcome.to.name,
                      devices: outcome.devices,
                      alarms: outcome.alarms,
                      active: outcome.activeAlarms,
                    })}
                  </li>
                  <li>{t('devices.move.siteVisibility', { to: outcome.to.name })}</li>
                  {scheme && (
                    <li data-testid="move-site-scheme">
                      {scheme.kept
                        ? t('devices.move.schemeKept', { scheme: scheme.name })
                        : t('devices.move.schemeRemoved', { scheme: scheme.name, to: outcome.to.name })}
                    </li>
                  )}
                </ul>
              }
            />
          )}
        </Form>
      )}
    </FormDialog>
  );
}
