/**
 * The scheme picker above both ToU screens: choose a scheme, create one (empty or from a
 * template), rename or delete it, and save the working copy (with its unsaved-changes state).
 * Buttons follow the permissions: new / template / rename / save need tou:scheme:save, delete
 * tou:scheme:delete.
 * Test hooks: `scheme-select`, `scheme-add`, `scheme-template`, `scheme-rename`,
 * `scheme-delete`, `scheme-delete-ok`, `scheme-state`, `scheme-save`, `scheme-stale`,
 * `scheme-reload`.
 */
import {
  CloudUploadOutlined,
  DeleteOutlined,
  EditOutlined,
  FileAddOutlined,
  PlusOutlined,
  SaveOutlined,
} from '@ant-design/icons';
import { Perm } from '@ess/contract';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, type ButtonProps, Popconfirm, Select, Space, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { deleteScheme, updateScheme } from '../api';
import type { SchemeEditor } from '../useSchemeEditor';
import { CreateSchemeDialog, RenameDialog, TemplateDialog } from './SchemeDialogs';

export function SchemeBar({ editor }: { editor: SchemeEditor }) {
  const { t } = useTranslation();
  const canSave = usePermission(Perm.touSave);
  const canDelete = usePermission(Perm.touDelete);
  const [dialog, setDialog] = useState<'create' | 'template' | 'rename' | null>(null);
  const { draft, schemes } = editor;

  const remove = useMutation({
    mutationFn: (id: number) => deleteScheme(id),
    onSuccess: () => {
      showSuccess(t('tou.scheme.deleted'));
      editor.forget();
    },
  });

  const rename = async (name: string) => {
    if (!draft) return;
    if (draft.id === null || !editor.detail) {
      editor.setName(name);
      return;
    }
    // The stored document with the new name; edits in progress stay in the working copy.
    const answer = await updateScheme(draft.id, editor.detail.version, name, editor.detail.document);
    editor.renamed(name, answer.version);
    showSuccess(t('tou.scheme.renamed'));
  };

  const options = (schemes ?? []).map((s) => ({
    value: s.id,
    label: s.name,
    meta: `${s.companyName} · ${t('tou.scheme.siteCount', { count: s.siteCount })}`,
  }));
  const value = draft?.id ?? (draft ? -1 : undefined);
  if (draft && draft.id === null)
    options.unshift({ value: -1, label: draft.name, meta: t('tou.scheme.newUnsaved') });

  return (
    <div className="tou-bar">
      <div className="tou-bar__pick">
        <Select<number>
          className="tou-bar__select"
          value={value}
          loading={editor.schemesLoading}
          placeholder={t('tou.scheme.placeholder')}
          aria-label={t('tou.scheme.label')}
          showSearch={{ optionFilterProp: 'label' }}
          options={options}
          optionRender={(o) => (
            <div className="tou-bar__option">
              <span>{o.data.label}</span>
              <span className="tou-muted">{o.data.meta}</span>
            </div>
          )}
          onChange={(id) => id > 0 && void editor.select(id)}
          notFoundContent={t('tou.scheme.none')}
          data-testid="scheme-select"
        />
        <Space wrap size={8}>
          {canSave && (
            <Button icon={<PlusOutlined />} onClick={() => setDialog('create')} data-testid="scheme-add">
              {t('tou.scheme.add')}
            </Button>
          )}
          {canSave && (
            <Button
              icon={<FileAddOutlined />}
              onClick={() => setDialog('template')}
              data-testid="scheme-template"
            >
              {t('tou.scheme.fromTemplate')}
            </Button>
          )}
          {canSave && draft && (
            <Button icon={<EditOutlined />} onClick={() => setDialog('rename')} data-testid="scheme-rename">
              {t('tou.scheme.rename')}
            </Button>
          )}
          {canDelete && draft?.id != null && (
            <Popconfirm
              title={t('tou.scheme.delete')}
              description={t('tou.scheme.deleteConfirm', { name: draft.name })}
              okText={t('common.delete')}
              okButtonProps={{ danger: true, 'data-testid': 'scheme-delete-ok' } as ButtonProps}
              cancelText={t('common.cancel')}
              onConfirm={() => remove.mutateAsync(draft.id!).catch(() => undefined)}
            >
              <Button danger icon={<DeleteOutlined />} data-testid="scheme-delete">
                {t('tou.scheme.delete')}
              </Button>
            </Popconfirm>
          )}
        </Space>
      </div>
      {draft && (
        <div className="tou-bar__save">
          <span data-testid="scheme-state">
            {draft.id === null ? (
              <Tag color="gold">{t('tou.scheme.newUnsaved')}</Tag>
            ) : editor.dirty ? (
              <Tag color="orange">{t('tou.scheme.unsaved')}</Tag>
            ) : (
              <Tag color="green">{t('tou.scheme.allSaved')}</Tag>
            )}
          </span>
          {canSave && (
            <Button
              type="primary"
              icon={draft.id === null ? <CloudUploadOutlined /> : <SaveOutlined />}
              loading={editor.saving}
              disabled={!editor.dirty}
              onClick={() => void editor.save()}
              data-testid="scheme-save"
            >
              {t('tou.save')}
            </Button>
          )}
        </div>
      )}
      {editor.stale && (
        <Alert
          className="tou-bar__stale"
          type="warning"
          showIcon
          title={t('tou.scheme.stale')}
          action={
            <Button size="small" onClick={editor.reload} data-testid="scheme-reload">
              {t('tou.scheme.reload')}
            </Button>
          }
          data-testid="scheme-stale"
        />
      )}

      <CreateSchemeDialog
        open={dialog === 'create'}
        defaultName={t('tou.scheme.defaultName', { n: (schemes?.length ?? 0) + 1 })}
        onClose={() => setDialog(null)}
        onCreate={editor.startNew}
      />
      <TemplateDialog
        open={dialog === 'template'}
        onClose={() => setDialog(null)}
        onCreate={editor.startNew}
      />
      {draft && (
        <RenameDialog
          open={dialog === 'rename'}
          name={draft.name}
          onClose={() => setDialog(null)}
          onRename={rename}
        />
      )}
    </div>
  );
}
