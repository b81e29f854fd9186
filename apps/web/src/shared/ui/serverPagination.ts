import type { TablePaginationConfig } from 'antd';
import type { ReactNode } from 'react';

/** A server-paged list's page: 1-based number and size. */
export interface ListPage {
  pageNum: number;
  pageSize: number;
}

/**
 * The pagination of a server-paged table: the current page, the total from the server, the size
 * changer (10, 20, 50, 100) and the "total" text; a page or size change goes to `setPage`.
 */
export function serverPagination(
  page: ListPage,
  total: number | undefined,
  setPage: (page: ListPage) => void,
  showTotal: (total: number) => ReactNode,
): TablePaginationConfig {
  return {
    current: page.pageNum,
    pageSize: page.pageSize,
    total: total ?? 0,
    showSizeChanger: true,
    pageSizeOptions: [10, 20, 50, 100],
    showTotal,
    onChange: (pageNum, pageSize) => setPage({ pageNum, pageSize }),
  };
}
