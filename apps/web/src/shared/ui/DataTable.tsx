/**
 * The table of a server-paged list screen: antd Table with the shell every list repeats —
 * `rowKey` 'id', size middle, horizontal scroll to the content's width, the rows and loading
 * state of the list query (`{list, total}`, spec §4), the server pagination (sizes 10/20/50/100
 * and the screen's "total" text) and an optional empty text. Other Table props pass through.
 */
import { Table, type TableProps } from 'antd';
import type { ReactNode } from 'react';
import { type ListPage, serverPagination } from './serverPagination';

export interface DataTableProps<R>
  extends Omit<TableProps<R>, 'dataSource' | 'loading' | 'pagination' | 'rowKey' | 'locale'> {
  /** The list query: its answer (`list`, `total`) and whether the first load is running. */
  query: { data?: { list: R[]; total: number } | undefined; isLoading: boolean };
  /** The page shown and its setter (page or size change). */
  page: ListPage;
  setPage: (page: ListPage) => void;
  /** The pagination's "total" text, e.g. `(n) => t('roles.total', { count: n })`. */
  totalText: (total: number) => ReactNode;
  /** Defaults to 'id'. */
  rowKey?: TableProps<R>['rowKey'];
  /** Shown when the list is empty (antd's default otherwise). */
  emptyText?: ReactNode;
  /** `data-testid` of the table. */
  testId?: string;
}

export function DataTable<R extends object>({
  query,
  page,
  setPage,
  totalText,
  rowKey = 'id',
  emptyText,
  testId,
  size = 'middle',
  scroll = { x: 'max-content' },
  ...rest
}: DataTableProps<R>) {
  return (
    <Table<R>
      rowKey={rowKey}
      size={size}
      scroll={scroll}
      dataSource={query.data?.list ?? []}
      loading={query.isLoading}
      pagination={serverPagination(page, query.data?.total, setPage, totalText)}
      locale={emptyText === undefined ? undefined : { emptyText }}
      data-testid={testId}
      {...rest}
    />
  );
}
