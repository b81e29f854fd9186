/**
 * System → Employees (`system/employee/index`): the company picker on top (when the caller sees
 * several companies; the caller's own by default), the company's department tree on the left
 * (choosing one lists its employees and those of the departments below it), the employee table
 * on the right (search, status filter, paging, status switch, add / edit / reset password /
 * delete). Below 992 px the two columns stack. Without system:dept:list the tree is left out.
 * Buttons follow system:employee:save|delete|status|resetPwd; the server checks again (5034).
 * Test hooks: `employee-page` (and those of the components and dialogs).
 */
import { type EmployeeRow, Perm } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { usePermission, useSession } from '@/features/auth';
import { fetchDepartments, orgPeopleKeys } from '../api';
import { CompanyPicker, useCompanyChoice } from '../CompanyPicker';
import { DepartmentTreePanel } from '../components/DepartmentTreePanel';
import { EmployeeDialog, type EmployeeDialogTarget } from '../components/EmployeeDialog';
import { EmployeeTable } from '../components/EmployeeTable';
import { ResetPasswordDialog } from '../components/ResetPasswordDialog';
import '../org-people.css';

/** The employees view. */
export default function EmployeesPage() {
  const canSave = usePermission(Perm.employeeSave);
  const canDelete = usePermission(Perm.employeeDelete);
  const canStatus = usePermission(Perm.employeeStatus);
  const canReset = usePermission(Perm.employeeResetPassword);
  const selfId = useSession((s) => s.user?.employeeId ?? null);

  const canListDepartments = usePermission(Perm.deptList);
  const [companyId, setCompanyId] = useCompanyChoice();
  const departments = useQuery({
    queryKey: orgPeopleKeys.departmentsOf(companyId),
    queryFn: () => fetchDepartments(companyId),
    enabled: canListDepartments,
  });
  const [departmentId, setDepartmentId] = useState<number | null>(null);
  const pickCompany = (id: number) => {
    setCompanyId(id);
    setDepartmentId(null);
  };
  const [dialog, setDialog] = useState<EmployeeDialogTarget | null>(null);
  const [resetFor, setResetFor] = useState<EmployeeRow | null>(null);

  const onEdit = useCallback((employee: EmployeeRow) => setDialog({ kind: 'edit', employee }), []);

  return (
    <div
      className={canListDepartments ? 'org-people' : 'org-people org-people--single'}
      data-testid="employee-page"
    >
      <CompanyPicker value={companyId} onChange={pickCompany} className="org-people__picker" />
      {canListDepartments && (
        <DepartmentTreePanel
          departments={departments.data ?? []}
          loading={departments.isLoading}
          selected={departmentId}
          onSelect={setDepartmentId}
        />
      )}
      <EmployeeTable
        companyId={companyId}
        departmentId={departmentId}
        selfId={selfId}
        canEdit={canSave}
        canDelete={canDelete}
        canStatus={canStatus}
        canReset={canReset}
        onAdd={canSave ? () => setDialog({ kind: 'add', departmentId }) : null}
        onEdit={onEdit}
        onReset={setResetFor}
      />
      <EmployeeDialog
        target={dialog}
        companyId={companyId}
        departments={canListDepartments ? (departments.data ?? []) : null}
        onClose={() => setDialog(null)}
      />
      <ResetPasswordDialog employee={resetFor} onClose={() => setResetFor(null)} />
    </div>
  );
}
