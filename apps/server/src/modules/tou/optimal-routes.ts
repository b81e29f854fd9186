/**
 * `/api-bms/tou/optimalPlan` (contract `endpoints.tou.optimalPlan`, needs tou:scheme:list): the
 * optimal schedule of a day's tariff for a site's battery and the daily plan made of it
 * (optimal-service.ts; the model in the contract's tou/optimal.ts).
 *
 * Body: siteId, periods (the daily plan being edited: times, tiers, prices), roundTripEfficiencyPct,
 * socMinPct, socMaxPct, degradationCostCnyPerKwh, demandChargeCnyPerKwMonth, monthPeakKw, loadKw?
 * (96 quarter-hour values). Answers the schedule (kW per quarter hour, SOC), the LP optimum, the
 * plan's periods and what the plan gives when run. Nothing is written: the operator puts the plan
 * into a scheme and saves it with `tou/update`. Errors: -100 (the field named), 3070–3094, 3036, 3095.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { optimalPlanOfSite } from './optimal-service';

export const touOptimalRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, endpoints.tou.optimalPlan, async (request) =>
    ok(
      request,
      await optimalPlanOfSite(app.db, await companyScope(app.db, request.auth), request.body, request.lang),
    ),
  );
};
