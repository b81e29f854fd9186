/**
 * Icon picker of the menu dialog: a searchable select of the bundled menu icons
 * (`shared/icons`), each shown with its name; clearable (no icon). A stored name that is not
 * bundled stays selectable and shows the fallback icon, so editing a row keeps it.
 * Test hook: `menu-icon` (the select).
 */
import { Select } from 'antd';
import { useMemo } from 'react';
import { ICON_NAMES, menuIcon } from '@/shared/icons';

interface Props {
  value?: string | null;
  onChange?: (name: string | null) => void;
  placeholder?: string;
}

export function IconPicker({ value, onChange, placeholder }: Props) {
  const options = useMemo(() => {
    const names = value && !ICON_NAMES.includes(value) ? [value, ...ICON_NAMES] : ICON_NAMES;
    return names.map((name) => ({
      value: name,
      label: (
        <span className="menu-icon-option">
          {menuIcon(name)}
          {name}
        </span>
      ),
    }));
  }, [value]);

  return (
    <Select<string>
      allowClear
      showSearch={{ optionFilterProp: 'value' }}
      value={value ?? undefined}
      onChange={(v) => onChange?.(v ?? null)}
      options={options}
      placeholder={placeholder}
      data-testid="menu-icon"
    />
  );
}
