import { PayoutSchedule, rpcs } from "@payaccept/contracts";
import { randomToken } from "@payaccept/platform";
import { Hono, type Context } from "hono";
import { parseRubles } from "../amount-input.ts";
import { loaded } from "../backend.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { accountOf } from "../middleware.ts";
import { BalancePage, scheduleFormOf, type PayoutForm, type ScheduleForm } from "../views/balance-page.tsx";
import { done, noticeOf, refusalsOf } from "./action.ts";

const PAYOUT_HISTORY = 50;

/** The account's balance and payouts: one read of each, the same figures the API reports. */
export function balanceRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  const page = async (c: Context<WebEnv>, form: PayoutForm, notice?: string, scheduleForm?: ScheduleForm) => {
    const accountId = accountOf(c);
    const [balance, payouts, details, schedule] = await Promise.all([
      loaded(deps.backend.call(rpcs.balance.get, { accountId })),
      loaded(deps.backend.call(rpcs.balance.listPayouts, { accountId, limit: PAYOUT_HISTORY }).then((p) => p.items)),
      loaded(deps.backend.call(rpcs.directory.getAccountDetails, { accountId })),
      loaded(deps.backend.call(rpcs.balance.getSchedule, { accountId })),
    ]);
    const shownSchedule = scheduleForm ?? scheduleFormOf(schedule.ok ? schedule.value.schedule : null, c.get("page").lang);
    return (
      <BalancePage page={c.get("page")} balance={balance} payouts={payouts} details={details} schedule={schedule} scheduleForm={shownSchedule} form={form} notice={notice} now={deps.now()} />
    );
  };
  // Each rendering of the form gets its own key, so a double submit pays out once.
  const freshForm = (): PayoutForm => ({ amount: "", idempotencyKey: randomToken(16), errors: [] });

  r.get("/balance", async (c) => c.html(await page(c, freshForm(), await noticeOf(c, deps))));

  r.post("/balance/payouts", async (c) => {
    const accountId = accountOf(c);
    const form = await formOf(c);
    const amount = text(form, "amount");
    const idempotencyKey = text(form, "idempotencyKey").slice(0, 128) || randomToken(16);
    const kopecks = parseRubles(amount);
    const refused = (errors: string[]) => page(c, { amount, idempotencyKey, errors }).then((view) => c.html(view, 400));
    if (kopecks === undefined || kopecks === 0) return refused([c.get("page").t.payoutAmountInvalid]);
    const errors = await refusalsOf(c, () => deps.backend.call(rpcs.balance.createPayout, { accountId, amountKopecks: kopecks, idempotencyKey }));
    if (errors.length > 0) return refused(errors);
    return done(c, deps, "/balance", { kind: "notice", text: "payoutDone" });
  });

  r.post("/balance/schedule", async (c) => {
    const accountId = accountOf(c);
    const form = await formOf(c);
    const values: ScheduleForm = { mode: text(form, "mode"), weekday: text(form, "weekday"), time: text(form, "time"), minimum: text(form, "minimum"), errors: [] };
    const minimumKopecks = values.minimum.trim() === "" ? 0 : parseRubles(values.minimum);
    const schedule =
      values.mode === "off"
        ? null
        : { frequency: values.mode, weekday: values.mode === "weekly" ? Number(values.weekday) : null, time: values.time.trim(), minimumKopecks };
    const parsed = schedule === null ? { success: true as const, data: null } : PayoutSchedule.safeParse(schedule);
    const refused = (errors: string[]) => page(c, freshForm(), undefined, { ...values, errors }).then((view) => c.html(view, 400));
    if (minimumKopecks === undefined) return refused([c.get("page").t.scheduleMinimumInvalid]);
    if (!parsed.success) return refused([c.get("page").t.scheduleInvalid]);
    await deps.backend.call(rpcs.balance.setSchedule, { accountId, schedule: parsed.data });
    return done(c, deps, "/balance", { kind: "notice", text: "scheduleSaved" });
  });

  return r;
}
