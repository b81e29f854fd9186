/**
 * Cells shared by the item rows of yearly settings and exception plans: the plan an item points
 * at, and the row's delete button.
 */
import { DeleteOutlined } from '@ant-design/icons';
import type { TouIssue } from '@ess/contract';
import { Button, Select } from 'antd';
import { FieldIssues } from './Issues';

interface PlanRefCellProps {
  /** The key the item points at. */
  value: number;
  /** The plans it may point at (value = key). */
  options: ReadonlyArray<{ value: number; label: string }>;
  editable: boolean;
  /** Issues at this field (a key that no longer exists shows as nothing chosen, with its issue). */
  issues: readonly TouIssue[];
  onChange: (key: number) => void;
  label: string;
  testId: string;
}

/** A select of the daily plan or weekly cycle an item points at, with its issues below. */
export function PlanRefCell({ value, options, editable, issues, onChange, label, testId }: PlanRefCellProps) {
  return (
    <div className="tou-yearly__cell">
      <Select<number>
        value={options.some((o) => o.value === value) ? value : undefined}
        options={[...options]}
        disabled={!editable}
        status={issues.length ? 'error' : undefined}
        onChange={onChange}
        className="tou-cell-select"
        aria-label={label}
        data-testid={testId}
      />
      <FieldIssues issues={issues} />
    </div>
  );
}

/** The row's delete button; an empty cell when the scheme cannot be edited (keeps the grid). */
export function ItemDeleteCell({
  editable,
  label,
  onDelete,
  testId,
}: {
  editable: boolean;
  label: string;
  onDelete: () => void;
  testId: string;
}) {
  if (!editable) return <span />;
  return (
    <Button
      type="text"
      danger
      size="small"
      icon={<DeleteOutlined />}
      aria-label={label}
      onClick={onDelete}
      data-testid={testId}
    />
  );
}
