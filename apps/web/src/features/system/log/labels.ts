/**
 * Readable names of what the operation log records. The server names an action
 * `<resource>.<verb>` (e.g. `role.update`, `user.login`) and a target by its type (`role`,
 * `company`…). Plain verbs on known resources read "verb + resource" ('修改角色' / 'Update
 * role'); the others have their own text; anything unknown shows its key.
 */
import type { TFunction } from 'i18next';

/** Resources (and target types) with a name. */
const RESOURCES = [
  'account',
  'session',
  'employee',
  'department',
  'role',
  'menu',
  'company',
  'agent',
  'investor',
  'construction',
  'owner',
  'site',
  'device',
] as const;
type Resource = (typeof RESOURCES)[number];

/** Verbs read as "verb + resource". */
const VERBS = ['save', 'update', 'delete', 'status', 'copy'] as const;
type Verb = (typeof VERBS)[number];

/** Actions with a text of their own. */
const SPECIAL_ACTIONS = [
  'user.login',
  'user.logout',
  'account.updatePassword',
  'account.updateEmail',
  'employee.resetPassword',
  'agent.assignDevices',
  'agent.unassignDevices',
  'device.resetSecret',
] as const;
type SpecialAction = (typeof SPECIAL_ACTIONS)[number];

const isResource = (v: string | undefined): v is Resource => RESOURCES.includes(v as Resource);
const isVerb = (v: string | undefined): v is Verb => VERBS.includes(v as Verb);
const isSpecial = (v: string): v is SpecialAction => SPECIAL_ACTIONS.includes(v as SpecialAction);

/** Actions offered by the action filter (what the server records), grouped by resource. */
export const KNOWN_ACTIONS: readonly string[] = [
  'user.login',
  'user.logout',
  'account.updatePassword',
  'account.updateEmail',
  'employee.save',
  'employee.update',
  'employee.status',
  'employee.delete',
  'employee.resetPassword',
  'department.save',
  'department.update',
  'department.delete',
  'role.save',
  'role.update',
  'role.delete',
  'role.copy',
  'menu.save',
  'menu.update',
  'menu.delete',
  ...['agent', 'investor', 'construction', 'owner'].flatMap((k) => [
    `${k}.save`,
    `${k}.update`,
    `${k}.status`,
  ]),
  'agent.assignDevices',
  'agent.unassignDevices',
  'site.save',
  'site.update',
  'site.delete',
  'device.save',
  'device.update',
  'device.delete',
  'device.resetSecret',
];

/** Target types offered by the target filter. */
export const KNOWN_TARGET_TYPES: readonly Resource[] = [
  'account',
  'session',
  'employee',
  'department',
  'role',
  'menu',
  'company',
  'site',
  'device',
];

/** 'role.update' → '修改角色' / 'Update role'; an unknown action → its key. */
export function actionLabel(t: TFunction, action: string): string {
  if (isSpecial(action)) return t(`oplog.actions.${action}`);
  const [resource, verb, ...rest] = action.split('.');
  if (rest.length > 0 || !isResource(resource) || !isVerb(verb)) return action;
  return t('oplog.actionFormat', {
    verb: t(`oplog.verb.${verb}`),
    resource: t(`oplog.resource.${resource}`),
  });
}

/** 'company' → '公司' / 'Company' (capitalised: it stands alone); an unknown type → itself. */
export function targetTypeLabel(t: TFunction, type: string): string {
  if (!isResource(type)) return type;
  const label = t(`oplog.resource.${type}`);
  return label.charAt(0).toUpperCase() + label.slice(1);
}
