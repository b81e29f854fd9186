/**
 * The toolbar above a list screen's table: optional leading nodes (company picker, extra
 * filters), a keyword search, an optional status select, the refresh button and an optional add
 * button on the right. Class names come from the screen's own CSS, so each screen keeps its look.
 *
 * The keyword input keeps its own text; `onSearch` gets the trimmed keyword on search (Enter or
 * the search button) and `''` as soon as the input is emptied.
 */
import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Input, Select, Tooltip } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';

export interface ListToolbarProps<S extends string> {
  /** Class of the toolbar row. */
  className: string;
  /** Nodes before the keyword search. */
  before?: ReactNode;
  keyword: {
    onSearch: (keyword: string) => void;
    placeholder: string;
    className?: string;
    testId: string;
  };
  status?: {
    value: S | undefined;
    onChange: (value: S | undefined) => void;
    options: { value: S; label: string }[];
    placeholder: string;
    ariaLabel: string;
    className?: string;
    testId: string;
  };
  refresh: { loading: boolean; onClick: () => void; testId: string };
  /** Omit when the caller may not add. */
  add?: { label: ReactNode; onClick: () => void; className?: string; testId: string } | null;
}

export function ListToolbar<S extends string>({
  className,
  before,
  keyword,
  status,
  refresh,
  add,
}: ListToolbarProps<S>) {
  const [search, setSearch] = useState('');
  return (
    <div className={className}>
      {before}
      <Input.Search
        allowClear
        value={search}
        onChange={(e) => {
          setSearch(e.target.value);
          if (!e.target.value) keyword.onSearch('');
        }}
        onSearch={(v) => keyword.onSearch(v.trim())}
        placeholder={keyword.placeholder}
        className={keyword.className}
        data-testid={keyword.testId}
      />
      {status && (
        <Select<S>
          allowClear
          value={status.value}
          onChange={(v) => status.onChange(v)}
          options={status.options}
          placeholder={status.placeholder}
          className={status.className}
          aria-label={status.ariaLabel}
          data-testid={status.testId}
        />
      )}
      <RefreshButton {...refresh} />
      {add && (
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={add.onClick}
          className={add.className}
          data-testid={add.testId}
        >
          {add.label}
        </Button>
      )}
    </div>
  );
}

/** Icon button with the "refresh" tooltip and aria-label; `loading` while a refetch runs. */
export function RefreshButton({
  loading,
  onClick,
  testId,
}: {
  loading: boolean;
  onClick: () => void;
  testId: string;
}) {
  const { t } = useTranslation();
  return (
    <Tooltip title={t('common.refresh')}>
      <Button
        icon={<ReloadOutlined />}
        loading={loading}
        onClick={onClick}
        aria-label={t('common.refresh')}
        data-testid={testId}
      />
    </Tooltip>
  );
}
