/**
 * Add / edit a menu entry (700 px, spec §9). Fields follow the contract's `menuInput` and are
 * shown by type: a directory groups entries in the sidebar (path; component `Layout` at the top
 * level gives it the frame); a page is a route (path and view component required, optional view
 * name, permission, keep-alive, active menu); a button is a permission only (permission string
 * `module:resource:action` required, no path). Every type has a parent (none = top level; a
 * button, the entry itself or one below it cannot be chosen), titles in Chinese and English,
 * sort and "platform only". The server answers 5040 for an invalid parent (marks the field) and
 * 5037 when the entry is gone (closes the dialog).
 * Test hooks: `menu-dialog`, `menu-parent`, `menu-type`, `menu-title-zh`, `menu-title-en`,
 * `menu-path`, `menu-name`, `menu-component`, `menu-vue-name`, `menu-icon`, `menu-perms`,
 * `menu-sort`, `menu-redirect`, `menu-active-menu`, `menu-keep-alive`, `menu-hidden`,
 * `menu-always-show`, `menu-breadcrumb`, `menu-platform-only`, `menu-submit`.
 */
import {
  buildTree,
  ErrorCode,
  LAYOUT_COMPONENT,
  MENU_TYPES,
  type MenuRow,
  type MenuType,
  PERMISSION_PATTERN,
  TEXT_LIMITS,
  type TreeNode,
} from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, Input, InputNumber, Radio, Switch, TreeSelect } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { refreshMenu } from '@/features/auth';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { catalogueText, currentLang } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { type MenuForm, menuKeys, saveMenu } from '../api';
import { IconPicker } from './IconPicker';

interface Values {
  parentId?: number | null;
  type: MenuType;
  titleZh: string;
  titleEn: string;
  path?: string;
  name?: string;
  component?: string;
  vueName?: string;
  icon?: string | null;
  perms?: string;
  sort: number;
  redirect?: string;
  activeMenu?: string;
  keepAlive: boolean;
  hidden: boolean;
  alwaysShow: boolean;
  breadcrumb: boolean;
  platformOnly: boolean;
}

interface ParentOption {
  value: number;
  title: string;
  disabled: boolean;
  children: ParentOption[];
}

/** Text or null: empty fields are stored as null. */
const orNull = (v: string | undefined | null): string | null => v?.trim() || null;

interface Props {
  open: boolean;
  /** The entry to edit; none to add one. */
  menu: MenuRow | null;
  /** Parent of a new entry (null: top level). */
  parentId: number | null;
  /** Every menu row, for the parent choice. */
  rows: MenuRow[];
  onClose: () => void;
}

/** The menu dialog; see the module comment. */
export function MenuDialog({ open, menu, parentId, rows, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const type = Form.useWatch('type', form) ?? menu?.type ?? 'page';
  const lang = currentLang();

  const parents = useMemo(() => {
    const toOptions = (nodes: TreeNode<MenuRow>[]): ParentOption[] =>
      nodes
        .filter((n) => n.type !== 'button')
        .map((n) => ({
          value: n.id,
          title: lang === 'en' ? n.titleEn : n.titleZh,
          disabled: n.disabled,
          children: toOptions(n.children),
        }));
    return toOptions(buildTree(rows, menu?.id));
  }, [rows, menu, lang]);

  useEffect(() => {
    if (!open) return;
    if (menu) {
      form.setFieldsValue({
        ...menu,
        path: menu.path || undefined,
        name: menu.name || undefined,
        component: menu.component ?? undefined,
        vueName: menu.vueName ?? undefined,
        perms: menu.perms ?? undefined,
        redirect: menu.redirect ?? undefined,
        activeMenu: menu.activeMenu ?? undefined,
      });
    } else {
      const parent = rows.find((r) => r.id === parentId);
      form.setFieldsValue({
        parentId,
        type: parent?.type === 'page' ? 'button' : parent ? 'page' : 'directory',
        sort: 0,
        keepAlive: false,
        hidden: false,
        alwaysShow: false,
        breadcrumb: true,
        platformOnly: parent?.platformOnly ?? false,
      });
    }
  }, [open, menu, parentId, rows, form]);

  const mutation = useMutation({
    mutationFn: (values: MenuForm) => saveMenu(values, menu?.id),
    onSuccess: () => {
      showSuccess(t('menus.saved'));
      void queryClient.invalidateQueries({ queryKey: menuKeys.list });
      // The sidebar shows the new menu at once; a failure leaves it as it was until the next sign-in.
      void refreshMenu().catch(() => undefined);
      onClose();
    },
    onError: (err) => {
      if (!isApiError(err)) return;
      if (err.code === ErrorCode.MENU_PARENT_INVALID) {
        form.setFields([{ name: 'parentId', errors: [catalogueText(err.code)] }]);
      } else if (err.code === ErrorCode.MENU_NOT_FOUND) {
        void queryClient.invalidateQueries({ queryKey: menuKeys.list });
        onClose();
      }
    },
  });

  const submit = async () => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    const button = v.type === 'button';
    mutation.mutate({
      parentId: v.parentId ?? null,
      type: v.type,
      sort: v.sort,
      titleZh: v.titleZh.trim(),
      titleEn: v.titleEn.trim(),
      path: button ? '' : (v.path?.trim() ?? ''),
      name: button ? '' : (v.name?.trim() ?? ''),
      component: button ? null : orNull(v.component),
      vueName: v.type === 'page' ? orNull(v.vueName) : null,
      icon: button ? null : (v.icon ?? null),
      perms: v.type === 'directory' ? null : orNull(v.perms),
      redirect: button ? null : orNull(v.redirect),
      activeMenu: v.type === 'page' ? orNull(v.activeMenu) : null,
      keepAlive: v.type === 'page' && v.keepAlive,
      hidden: !button && v.hidden,
      alwaysShow: v.type === 'directory' && v.alwaysShow,
      breadcrumb: button || v.breadcrumb,
      platformOnly: v.platformOnly,
    });
  };

  const typeOptions = MENU_TYPES.map((value) => ({ value, label: t(`menus.type.${value}`) }));

  return (
    <FormDialog
      open={open}
      title={menu ? t('menus.edit') : t('menus.add')}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="menu-dialog"
      submitTestId="menu-submit"
    >
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()}>
        <Form.Item<Values> name="parentId" label={t('menus.field.parent')}>
          <TreeSelect
            allowClear
            treeDefaultExpandAll
            treeData={parents}
            placeholder={t('menus.topLevel')}
            showSearch={{ treeNodeFilterProp: 'title' }}
            data-testid="menu-parent"
          />
        </Form.Item>
        <Form.Item<Values> name="type" label={t('menus.colType')}>
          <Radio.Group options={typeOptions} optionType="button" data-testid="menu-type" />
        </Form.Item>
        <div className="menu-form__row">
          <Form.Item<Values>
            name="titleZh"
            label={t('menus.field.titleZh')}
            rules={[{ required: true, whitespace: true, message: t('menus.rule.titleRequired') }]}
          >
            <Input maxLength={TEXT_LIMITS.menuTitle} data-testid="menu-title-zh" />
          </Form.Item>
          <Form.Item<Values>
            name="titleEn"
            label={t('menus.field.titleEn')}
            rules={[{ required: true, whitespace: true, message: t('menus.rule.titleRequired') }]}
          >
            <Input maxLength={TEXT_LIMITS.menuTitle} data-testid="menu-title-en" />
          </Form.Item>
        </div>
        {type !== 'button' && (
          <div className="menu-form__row">
            <Form.Item<Values>
              name="path"
              label={t('menus.colPath')}
              extra={t('menus.hint.path')}
              rules={[{ required: true, whitespace: true, message: t('menus.rule.pathRequired') }]}
            >
              <Input maxLength={TEXT_LIMITS.menuPath} autoComplete="off" data-testid="menu-path" />
            </Form.Item>
            <Form.Item<Values> name="name" label={t('menus.field.name')} extra={t('menus.hint.name')}>
              <Input maxLength={TEXT_LIMITS.menuName} autoComplete="off" data-testid="menu-name" />
            </Form.Item>
          </div>
        )}
        {type !== 'button' && (
          <div className="menu-form__row">
            <Form.Item<Values>
              name="component"
              label={t('menus.colComponent')}
              extra={
                type === 'page'
                  ? t('menus.hint.component')
                  : t('menus.hint.layout', { layout: LAYOUT_COMPONENT })
              }
              rules={[
                { required: type === 'page', whitespace: true, message: t('menus.rule.componentRequired') },
              ]}
            >
              <Input maxLength={TEXT_LIMITS.menuComponent} autoComplete="off" data-testid="menu-component" />
            </Form.Item>
            <Form.Item<Values> name="icon" label={t('menus.colIcon')}>
              <IconPicker placeholder={t('menus.noIcon')} />
            </Form.Item>
          </div>
        )}
        {type === 'page' && (
          <div className="menu-form__row">
            <Form.Item<Values>
              name="vueName"
              label={t('menus.field.vueName')}
              extra={t('menus.hint.vueName')}
            >
              <Input maxLength={TEXT_LIMITS.menuVueName} autoComplete="off" data-testid="menu-vue-name" />
            </Form.Item>
            <Form.Item<Values>
              name="activeMenu"
              label={t('menus.field.activeMenu')}
              extra={t('menus.hint.activeMenu')}
            >
              <Input
                maxLength={TEXT_LIMITS.menuActiveMenu}
                autoComplete="off"
                data-testid="menu-active-menu"
              />
            </Form.Item>
          </div>
        )}
        <div className="menu-form__row">
          {type !== 'directory' && (
            <Form.Item<Values>
              name="perms"
              label={t('menus.colPerms')}
              extra={t('menus.hint.perms')}
              rules={[
                { required: type === 'button', whitespace: true, message: t('menus.rule.permsRequired') },
                { pattern: PERMISSION_PATTERN, message: t('menus.rule.permsFormat') },
              ]}
            >
              <Input
                maxLength={TEXT_LIMITS.menuPerms}
                autoComplete="off"
                placeholder="system:role:save"
                data-testid="menu-perms"
              />
            </Form.Item>
          )}
          {type !== 'button' && (
            <Form.Item<Values>
              name="redirect"
              label={t('menus.field.redirect')}
              extra={t('menus.hint.redirect')}
            >
              <Input maxLength={TEXT_LIMITS.menuRedirect} autoComplete="off" data-testid="menu-redirect" />
            </Form.Item>
          )}
          <Form.Item<Values>
            name="sort"
            label={t('menus.colSort')}
            rules={[{ required: true, type: 'integer', min: 0, max: 9999, message: t('menus.rule.sort') }]}
          >
            <InputNumber
              min={0}
              max={9999}
              precision={0}
              className="menu-form__number"
              data-testid="menu-sort"
            />
          </Form.Item>
        </div>
        <div className="menu-form__switches">
          {type === 'page' && (
            <Form.Item<Values> name="keepAlive" label={t('menus.colKeepAlive')} valuePropName="checked">
              <Switch data-testid="menu-keep-alive" />
            </Form.Item>
          )}
          {type !== 'button' && (
            <Form.Item<Values> name="hidden" label={t('menus.colHidden')} valuePropName="checked">
              <Switch data-testid="menu-hidden" />
            </Form.Item>
          )}
          {type === 'directory' && (
            <Form.Item<Values>
              name="alwaysShow"
              label={t('menus.field.alwaysShow')}
              tooltip={t('menus.hint.alwaysShow')}
              valuePropName="checked"
            >
              <Switch data-testid="menu-always-show" />
            </Form.Item>
          )}
          {type !== 'button' && (
            <Form.Item<Values> name="breadcrumb" label={t('menus.field.breadcrumb')} valuePropName="checked">
              <Switch data-testid="menu-breadcrumb" />
            </Form.Item>
          )}
          <Form.Item<Values>
            name="platformOnly"
            label={t('menus.field.platformOnly')}
            tooltip={t('menus.hint.platformOnly')}
            valuePropName="checked"
          >
            <Switch data-testid="menu-platform-only" />
          </Form.Item>
        </div>
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
