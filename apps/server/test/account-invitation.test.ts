/**
 * Account discovery across companies (issue 13 item 9): a company administrator who adds, with
 * `employee/save`, the account of a person of another company learns nothing about it — the
 * answer, the row in the list, the operation-log entry and a later password reset are the same
 * as for an account that did not exist — and the person's password and company pick stay as
 * they were until they accept the invitation after signing in (docs/api.md "Adding an existing
 * account"). Declining leaves the company's row "awaiting first sign-in", as an unused new
 * account would.
 */
import { ErrorCode, endpoints } from '@ess/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userAccount } from '../src/core/db/schema';
import { call, digest, type SignedIn, signIn } from './support/client';
import { addStaff, type Staff, terminal, unique } from './support/fixtures';
import { adminRoleOf, uniquePhone } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('adding an existing account on %s', (engine) => {
  let ctx: TestContext;
  let platform: SignedIn;
  /** The administrator of company M, who tries to find out whether accounts exist. */
  let mallory: SignedIn;
  let companyM: number;
  let companyV: number;

  const db = () => ctx.database.db;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  const okCall = async (token: string, path: string, body: object): Promise<any> => {
    const answer = await call(ctx.app, path, body, { token });
    expect(answer.code, `${path}: ${answer.msg}`).toBe(0);
    return answer.data;
  };
  const newCompany = async (kind: 'agent' | 'owner') =>
    (await okCall(platform.token, endpoints[kind].save.path, { name: unique(kind), phone: uniquePhone() }))
      .id;
  const accountRow = async (userId: number) =>
    (await db().select().from(userAccount).where(eq(userAccount.id, userId)))[0]!;
  const companiesAtLogin = async (staff: Staff) => {
    const login = await call(ctx.app, endpoints.user.login.path, {
      account: staff.account,
      password: digest(staff.password),
      terminalId: terminal(),
    });
    expect(login.code).toBe(0);
    return login.data.companyList.map((c: { id: number }) => c.id);
  };
  /** What of an employee row may differ between two people: their own fields. */
  const shape = ({
    id: _i,
    account: _a,
    name: _n,
    phone: _p,
    createdAt: _c,
    ...rest
  }: Record<string, unknown>) => rest;

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    platform = await signIn(ctx.app);
    companyM = await newCompany('agent');
    companyV = await newCompany('owner');
    const m = await addStaff(db(), { companyId: companyM, roleIds: [await adminRoleOf(db(), companyM)] });
    mallory = await signIn(ctx.app, m.account, m.password);
  });
  afterAll(async () => ctx?.close());

  /** Mallory adds `account` to M with an initial password of her choosing. */
  const addToM = (account: string, lang: 'zh' | 'en' = 'zh') =>
    call(
      ctx.app,
      endpoints.employee.save.path,
      { account, password: digest('mallory-pw-1'), name: unique('员工'), phone: uniquePhone() },
      { token: mallory.token, lang },
    );

  it('the answer, row, log entry and reset for another company’s account are those of a new account', async () => {
    const victim = await addStaff(db(), { companyId: companyV, password: 'victim-pw-1' });
    const before = await accountRow(victim.userId);
    const newAccount = unique('nobody');

    const existing = await addToM(victim.account);
    const created = await addToM(newAccount);
    expect(existing.code).toBe(0);
    expect(created.code).toBe(0);
    expect(existing.msg).toBe(created.msg);
    expect(Object.keys(existing.data)).toEqual(Object.keys(created.data));
    expect(Object.keys(existing.data)).toEqual(['id']);

    const [rowE, rowN] = await Promise.all(
      [existing.data.id, created.data.id].map((id) =>
        okCall(mallory.token, endpoints.employee.detail.path, { id }),
      ),
    );
    expect(shape(rowE)).toEqual(shape(rowN));
    expect(rowE).toMatchObject({ awaitingSignIn: true, mustChangePassword: true });
    expect(rowE).not.toHaveProperty('userId');
    const list = await okCall(mallory.token, endpoints.employee.pageList.path, { pageSize: 500 });
    const listed = list.list.filter((r: { id: number }) => [rowE.id, rowN.id].includes(r.id));
    expect(listed).toHaveLength(2);
    expect(shape(listed[0])).toEqual(shape(listed[1]));

    // The log entries Mallory reads differ only in the typed fields.
    const log = await okCall(mallory.token, endpoints.log.pageList.path, { action: 'employee.save' });
    const entries = log.list.filter((r: { targetId: string }) =>
      [String(rowE.id), String(rowN.id)].includes(r.targetId),
    );
    expect(entries).toHaveLength(2);
    expect(Object.keys(entries[0].after).sort()).toEqual(Object.keys(entries[1].after).sort());

    // A reset answers the same for both (and touches neither password).
    for (const id of [rowE.id, rowN.id]) {
      const reset = await call(
        ctx.app,
        endpoints.employee.resetPassword.path,
        { id, password: digest('mallory-pw-2') },
        { token: mallory.token },
      );
      expect(reset.code).toBe(ErrorCode.EMPLOYEE_AWAITING_SIGN_IN);
    }

    // The victim: same password (Mallory's does not sign in), same company pick, invited.
    expect(await accountRow(victim.userId)).toEqual(before);
    expect(
      (
        await call(ctx.app, endpoints.user.login.path, {
          account: victim.account,
          password: digest('mallory-pw-1'),
          terminalId: terminal(),
        })
      ).code,
    ).toBe(ErrorCode.BAD_CREDENTIALS);
    expect(await companiesAtLogin(victim)).toEqual([companyV]);
    // M cannot be entered before consent.
    const login = await call(ctx.app, endpoints.user.login.path, {
      account: victim.account,
      password: digest(victim.password),
      terminalId: 'terminal-m-1',
    });
    const intoM = await call(ctx.app, endpoints.user.getUserInfo.path, {
      userId: login.data.userId,
      companyId: companyM,
      terminalId: 'terminal-m-1',
      loginTicket: login.data.loginTicket,
    });
    expect(intoM.code).toBe(ErrorCode.EMPLOYEE_NOT_FOUND);
    // The victim's sign-in attempts stay in V's log, never M's.
    const attempts = await okCall(mallory.token, endpoints.log.pageList.path, { action: 'user.login' });
    expect(JSON.stringify(attempts.list)).not.toContain(victim.account);

    const session = await signIn(ctx.app, victim.account, victim.password);
    expect(session.info.companyList.map((c: { id: number }) => c.id)).toEqual([companyV]);
    expect(session.info.invitations).toEqual([{ companyId: companyM, companyName: expect.any(String) }]);
  });

  it('accepting adds the company to the pick and activates the row; the log of M shows it', async () => {
    const victim = await addStaff(db(), { companyId: companyV });
    const { data } = await addToM(victim.account);
    const session = await signIn(ctx.app, victim.account, victim.password);

    const accepted = await okCall(session.token, endpoints.user.acceptInvitation.path, {
      companyId: companyM,
    });
    expect(accepted.invitations).toEqual([]);
    expect(accepted.companyList.map((c: { id: number }) => c.id)).toEqual(
      [companyV, companyM].sort((a, b) => a - b),
    );
    expect(await companiesAtLogin(victim)).toEqual([companyV, companyM].sort((a, b) => a - b));
    expect(await okCall(mallory.token, endpoints.employee.detail.path, { id: data.id })).toMatchObject({
      awaitingSignIn: false,
      mustChangePassword: false,
    });
    const log = await okCall(mallory.token, endpoints.log.pageList.path, {
      action: 'account.acceptInvitation',
    });
    expect(log.list.map((r: { targetId: string }) => r.targetId)).toContain(String(data.id));
    // Once only.
    const again = await call(
      ctx.app,
      endpoints.user.acceptInvitation.path,
      { companyId: companyM },
      {
        token: session.token,
      },
    );
    expect(again.code).toBe(ErrorCode.INVITATION_NOT_FOUND);
    // Now M is Mallory's to manage like any member: the reset rule of shared accounts applies.
    const reset = await call(
      ctx.app,
      endpoints.employee.resetPassword.path,
      { id: data.id, password: digest('mallory-pw-2') },
      { token: mallory.token },
    );
    expect(reset.code).toBe(ErrorCode.NO_PERMISSION);
  });

  it('declining closes the invitation; M still sees an employee awaiting first sign-in', async () => {
    const victim = await addStaff(db(), { companyId: companyV });
    const { data } = await addToM(victim.account);
    const session = await signIn(ctx.app, victim.account, victim.password);
    const declined = await okCall(session.token, endpoints.user.declineInvitation.path, {
      companyId: companyM,
    });
    expect(declined).toEqual({ companyList: [{ id: companyV, name: expect.any(String) }], invitations: [] });
    expect(await companiesAtLogin(victim)).toEqual([companyV]);
    expect(await okCall(mallory.token, endpoints.employee.detail.path, { id: data.id })).toMatchObject({
      awaitingSignIn: true,
    });
    // The decline is logged for the platform operator only: M does not read it.
    const logged = (token: string) =>
      okCall(token, endpoints.log.pageList.path, { action: 'account.declineInvitation' }).then((l) =>
        l.list.map((r: { targetId: string }) => r.targetId),
      );
    expect(await logged(platform.token)).toContain(String(data.id));
    expect(await logged(mallory.token)).not.toContain(String(data.id));
    const again = await call(
      ctx.app,
      endpoints.user.declineInvitation.path,
      { companyId: companyM },
      {
        token: session.token,
      },
    );
    expect(again.code).toBe(ErrorCode.INVITATION_NOT_FOUND);
    expect((await signIn(ctx.app, victim.account, victim.password)).info.invitations).toEqual([]);
  });

  it('an account already in the caller’s tree is added at once (nothing to discover)', async () => {
    const sub = await okCall(mallory.token, endpoints.owner.save.path, {
      name: unique('owner'),
      phone: uniquePhone(),
      parentId: companyM,
    });
    const member = await addStaff(db(), { companyId: sub.id });
    const { data } = await addToM(member.account);
    expect(await okCall(mallory.token, endpoints.employee.detail.path, { id: data.id })).toMatchObject({
      awaitingSignIn: false,
    });
    expect(await companiesAtLogin(member)).toEqual([companyM, sub.id].sort((a, b) => a - b));
  });
});
