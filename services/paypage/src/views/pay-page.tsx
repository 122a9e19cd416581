import type { CheckoutView } from "@payaccept/contracts";
import { Authenticate } from "./authenticate.tsx";
import { Layout, type PageContext } from "./layout.tsx";
import { MethodChoice } from "./method-choice.tsx";
import { NotAccepting, Outcome } from "./outcome.tsx";
import { Pending } from "./pending.tsx";
import { Summary } from "./summary.tsx";

/** Statuses that can still change in front of the buyer (a QR can be paid late after EXPIRED or FAILED). */
const LIVE = new Set(["CREATED", "PENDING", "FAILED", "EXPIRED"]);

export function PayPage(props: { view: CheckoutView; page: PageContext; csrf: string; qrSvg: string | null; now: number; notice: string | null }) {
  const { view, page } = props;
  const status = view.payment.status;
  const follow = LIVE.has(status) ? `/pay/${view.payment.id}/events` : undefined;
  return (
    <Layout
      page={page}
      title={`${page.t.pageTitle} — ${view.shopName}`}
      status={status}
      method={view.payment.method ?? undefined}
      follow={follow}
      refreshWithoutScript={status === "PENDING" && view.sbp !== null}
    >
      <Summary view={view} page={page} />
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      {status === "CREATED" && !view.accepting ? (
        <NotAccepting view={view} page={page} />
      ) : status === "CREATED" ? (
        <MethodChoice view={view} page={page} csrf={props.csrf} />
      ) : status === "PENDING" ? (
        <Pending view={view} page={page} csrf={props.csrf} qrSvg={props.qrSvg} now={props.now} />
      ) : status === "FAILED" && view.authentication ? (
        <Authenticate view={view} authentication={view.authentication} page={page} csrf={props.csrf} now={props.now} />
      ) : (
        <Outcome view={view} status={status} page={page} />
      )}
    </Layout>
  );
}
