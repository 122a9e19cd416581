/**
 * The one executable of the stack (infra/build/build-services.ts): `payaccept <service>` runs that
 * service as `bun src/main.ts` in its folder does, `payaccept admin <command> …` the admin CLI.
 * Compiled to bytecode, a service starts on about half the CPU that Bun spends parsing its sources.
 */
import type { ServiceName } from "../launcher/services.ts";

const programs: Record<ServiceName | "admin", () => Promise<unknown>> = {
  directory: () => import("../../services/directory/src/main.ts"),
  dashboard: () => import("../../services/dashboard/src/main.ts"),
  payments: () => import("../../services/payments/src/main.ts"),
  balance: () => import("../../services/balance/src/main.ts"),
  "webhook-dispatcher": () => import("../../services/webhook-dispatcher/src/main.ts"),
  "acquirer-emulator": () => import("../../services/acquirer-emulator/src/main.ts"),
  receipts: () => import("../../services/receipts/src/main.ts"),
  "cash-register-emulator": () => import("../../services/cash-register-emulator/src/main.ts"),
  gateway: () => import("../../services/gateway/src/main.ts"),
  paypage: () => import("../../services/paypage/src/main.ts"),
  admin: () => import("../admin/main.ts"),
};

const name = process.argv[2] ?? "";
const program = programs[name as keyof typeof programs];
if (!program) {
  console.error(`usage: payaccept <${Object.keys(programs).join("|")}> [arguments]`);
  process.exit(2);
}
// The program reads its own arguments from argv[2] on, as when started by itself.
process.argv.splice(2, 1);
await program();
