/**
 * Enabled / disabled status as a tag, with the text of a screen's `status` section
 * (`departments.status.*` or `employees.status.*`).
 */
import type { EnabledStatus } from '@ess/contract';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

export function StatusTag({
  status,
  section,
}: {
  status: EnabledStatus;
  section: 'departments' | 'employees';
}) {
  const { t } = useTranslation();
  return (
    <Tag color={status === 'enabled' ? 'success' : 'default'}>
      {section === 'departments' ? t(`departments.status.${status}`) : t(`employees.status.${status}`)}
    </Tag>
  );
}
