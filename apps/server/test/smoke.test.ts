import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';

describe.each(engines)('sign-in handshake on %s', (engine) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
  });
  afterAll(async () => ctx?.close());

  it('signs the seeded administrator in and answers the menu in English', async () => {
    const session = await signIn(ctx.app, 'admin', 'admin123', undefined, { lang: 'en' });
    expect(session.info.name).toBe('管理员');
    expect(session.info.menuList.map((m: { meta: { title: string } }) => m.meta.title)).toContain('System');
    const menu = await call(
      ctx.app,
      '/api-bms/user/getLanguageMenu',
      { language: 'cn' },
      { token: session.token },
    );
    expect(menu.code).toBe(0);
    expect(menu.data.menuList.map((m: { meta: { title: string } }) => m.meta.title)).toContain('系统管理');
  });
});
