/**
 * Demo projects (issue 17 item 1): at the demo fleet's registration, the two C&I operators of the
 * demo each get one project over their first C&I site, with partner companies below them
 * (investors, owner, construction party; names are data, stored in Chinese like the demo's
 * other names):
 *
 *  - 华东储能运营有限公司 → "苏州工业园储能项目（演示）", self-investment: owner 20 %, two
 *    investors 50 % and 30 %; maintenance 1,500 CNY/month and insurance 400 CNY/month shared by
 *    the ratios; status in operation;
 *  - 粤港澳综合能源服务有限公司 → "深圳科技园储能租赁项目（演示）", leasing: rent 12 CNY per kWh
 *    of the site's installed capacity per month, paid by the owner to two investors 60 % / 40 %;
 *    maintenance 1,000 CNY/month borne by the investors; status in operation.
 *
 * No storage meter is declared (`meters: []`; binding a site declares none): the demo site's only
 * meter (`MTR-…`) is its grid connection meter
 * (load, PV and battery together; devices/tier-energy.ts), so declaring it would bill the site's
 * consumption as "charged" (issue 17 item 5 review: 6,785 kWh charged, 0 discharged, −4,701 CNY in
 * 2 days). Without one, tier energy and the bills read the PCS's AC charge/discharge registers
 * (× 1), and each bill line names them ("PCS 充放电表码"). A simulated storage meter (a second
 * meter per C&I site) would change the device counts the simulator, the demo and the device
 * screens rely on; an operator with a real storage meter declares it with its CT/PT on the project.
 *
 * Two-part tariff (issue 17 item 5 "demand charge change"): the first project's site, when it is
 * priced on the Shanghai two-part tariff (simulator `TARIFF_OF_CITY`: the demo's Shanghai scheme,
 * ../shared/data tou-tariffs.json `CN-SH-2025-07-10kV-2part-general`, 一般工商业及其他 两部制
 * 10 kV, which lists the energy prices only), gets that class's basic charge on the month's
 * maximum demand: 40.8 CNY/kW·month (按实际最大需量; the same table's capacity price is 25.5
 * CNY/kVA·month). Source: the Shanghai two-part basic prices as transcribed in a public GitHub
 * file (a "Shanghai June" example of a pricing form; secondary, not checked against the State Grid
 * Shanghai price table itself); the rule, NDRC 发改价格〔2023〕526号 (provincial T&D prices with
 * their 需量电价) and 发改办价格〔2016〕1583号 (the user's choice of basis). Set on the site's
 * tariff versions and its ToU scheme (so a later edit of the scheme keeps it). The simulated grid
 * meter reports grid = load − PV − battery (apps/simulator model/site.ts), so a drafted bill
 * shows the month's maximum demand with storage and without (grid + battery) and the change. As
 * an operator on a max-demand tariff does, the site's EMS runs demand control: its
 * `demand_limit_kw` starts just under the load's usual monthly peak (180 kW for seed 1; set in
 * one place, apps/simulator fleet.ts `demandLimitKwOf`, for the first C&I site — this one — so
 * the written past and the live run share it). Without it the arbitrage plan charged at full PCS
 * power on top of the load and set the month's peak (August 2026 of the seed-1 fleet: 295 kW
 * measured against 209 kW without storage, −3,514 CNY); with it import is held at the target, so
 * storage lowers the peak (194 kW, +607 CNY; test/demo-bills.test.ts). Discharged energy falls by about
 * 5 % that month (302 → 286 kWh/day: shoulder charging held back under the target). In a month
 * whose plan empties the battery before the load's late-morning peak the change is 0.
 *
 * The sites are bound from the first day of the written past (`boundFrom`), so revenue and bills
 * have the whole history. Idempotent: a project whose name the company already has, or a site
 * bound elsewhere, is left alone; nothing is seeded on later starts once the projects exist.
 */
import { localTimeOf, NO_TWO_PART, type TwoPartTariff } from '@ess/contract';
import { TARIFF_OF_CITY } from '@ess/simulator';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { company, device, project, projectSite, site, siteTariff, touScheme } from '../core/db/schema';
import { FleetSnapshot } from '../devices/fleet-snapshot';
import { insertCompany } from '../modules/org/company-service';
import { type ProjectInput, ProjectService } from '../modules/project/project-service';

interface DemoProjectSpec {
  /** The operator company (a demo company, by name). */
  operator: string;
  name: string;
  address: string;
  partners: { investors: [string, number][]; owner: string; construction: string };
  contract: Pick<
    ProjectInput,
    | 'incomeMode'
    | 'ownerSharePct'
    | 'rentBasis'
    | 'rentCny'
    | 'maintenanceCnyPerMonth'
    | 'insuranceCnyPerMonth'
    | 'costBearer'
    | 'contractYears'
  >;
  /** A two-part basic charge for the site, when it runs on the tariff `tariffId` (module note). */
  twoPart?: { tariffId: string; charge: TwoPartTariff };
}

const SPECS: DemoProjectSpec[] = [
  {
    operator: '华东储能运营有限公司',
    name: '苏州工业园储能项目（演示）',
    address: '江苏省苏州市工业园区',
    partners: {
      investors: [
        ['华东储能一号投资合伙企业（演示）', 50],
        ['长三角绿色能源产业基金（演示）', 30],
      ],
      owner: '苏州精密制造有限公司（演示）',
      construction: '江苏电力安装工程有限公司（演示）',
    },
    contract: {
      incomeMode: 'self_investment',
      ownerSharePct: 20,
      rentBasis: null,
      rentCny: null,
      maintenanceCnyPerMonth: 1500,
      insuranceCnyPerMonth: 400,
      costBearer: 'shared',
      contractYears: 10,
    },
    twoPart: {
      tariffId: 'CN-SH-2025-07-10kV-2part-general',
      // Shanghai 两部制 basic charge on the month's maximum demand (module note for the source)
      charge: { ...NO_TWO_PART, demandChargeCnyPerKwMonth: 40.8, demandBasis: 'max_demand' },
    },
  },
  {
    operator: '粤港澳综合能源服务有限公司',
    name: '深圳科技园储能租赁项目（演示）',
    address: '广东省深圳市南山区科技园',
    partners: {
      investors: [
        ['粤港澳储能资产管理有限公司（演示）', 60],
        ['南方新能源投资有限公司（演示）', 40],
      ],
      owner: '深圳智能电子有限公司（演示）',
      construction: '广东能源建设工程有限公司（演示）',
    },
    contract: {
      incomeMode: 'leasing',
      ownerSharePct: null,
      rentBasis: 'per_kwh_capacity',
      rentCny: 12,
      maintenanceCnyPerMonth: 1000,
      insuranceCnyPerMonth: 0,
      costBearer: 'investors',
      contractYears: 8,
    },
  },
];

/**
 * Seeds the demo projects (module comment) over the operators' first C&I site (`-C` codes);
 * `pastStartMs`: the first instant of the written past, whose local date starts the bindings and
 * the contracts.
 */
export async function seedDemoProjects(db: Db, pastStartMs: number): Promise<number[]> {
  const service = new ProjectService(db, new FleetSnapshot(db));
  const all = { all: true } as const;
  const created: number[] = [];
  for (const spec of SPECS) {
    const [operator] = await db.select().from(company).where(eq(company.name, spec.operator));
    if (!operator) continue;
    const [exists] = await db
      .select({ id: project.id })
      .from(project)
      .where(and(eq(project.companyId, operator.id), eq(project.name, spec.name)));
    if (exists) continue;
    const [s] = await db
      .select()
      .from(site)
      .where(and(eq(site.companyId, operator.id), eq(site.isDemo, true)))
      .orderBy(asc(site.id));
    if (!s?.code.includes('-C')) continue;
    const [bound] = await db.select().from(projectSite).where(eq(projectSite.siteId, s.id)).limit(1);
    if (bound) continue;
    const partner = async (name: string, type: string) => {
      const [row] = await db.select({ id: company.id }).from(company).where(eq(company.name, name));
      return row?.id ?? (await insertCompany(db, { name, type, parentId: operator.id })).id;
    };
    const investors = [];
    for (const [name, ratioPct] of spec.partners.investors) {
      investors.push({ companyId: await partner(name, 'investor'), ratioPct });
    }
    const capacity = await db
      .select({ kwh: device.capacityKwh })
      .from(device)
      .where(and(eq(device.siteId, s.id), eq(device.type, 'bms')));
    const capacityKwh = capacity.reduce((n, d) => n + (d.kwh ?? 0), 0) || null;
    const start = localTimeOf(pastStartMs, s.timezone).date;
    const { id } = await service.create(
      all,
      { employeeId: null, name: '演示数据' },
      {
        companyId: operator.id,
        name: spec.name,
        address: spec.address,
        longitude: s.longitude,
        latitude: s.latitude,
        constructionCompanyId: await partner(spec.partners.construction, 'construction'),
        agentCompanyId: null,
        ownerCompanyId: await partner(spec.partners.owner, 'owner'),
        contractStart: start,
        ...spec.contract,
        capacityKwh,
        remark: null,
        investors,
        meters: [],
        siteIds: [s.id],
        boundFrom: start,
      },
      'zh',
    );
    if (spec.twoPart && TARIFF_OF_CITY[s.code.slice(0, 3)] === spec.twoPart.tariffId) {
      const charge = spec.twoPart.charge;
      await db.transaction(async (tx) => {
        await tx.update(siteTariff).set({ twoPart: charge }).where(eq(siteTariff.siteId, s.id));
        if (s.touSchemeId !== null) {
          await tx.update(touScheme).set({ twoPart: charge }).where(eq(touScheme.id, s.touSchemeId));
        }
      });
    }
    for (const status of ['under_construction', 'in_operation'] as const) {
      await service.changeStatus(all, { employeeId: null, name: '演示数据' }, id, status, 'zh');
    }
    created.push(id);
  }
  return created;
}
