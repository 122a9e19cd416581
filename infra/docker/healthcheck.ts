import { SERVICES, servicePort, type ServiceName } from "../launcher/services.ts";

/**
 * The container health probe: exit 0 when this container's service answers GET /readyz with 200
 * (NATS connected, store open), else 1. It runs on the image's own Bun, so the slim image needs
 * no curl, and it takes the port from the launcher's table, so it cannot disagree with the service.
 */
const name = process.env.SERVICE;
if (!name || !Object.hasOwn(SERVICES, name)) {
  console.error(`SERVICE must be one of ${Object.keys(SERVICES).join(", ")}`);
  process.exit(1);
}
const url = `http://127.0.0.1:${servicePort(name as ServiceName, process.env)}/readyz`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  if (!res.ok) console.error(`${url}: HTTP ${res.status} ${await res.text()}`);
  process.exit(res.ok ? 0 : 1);
} catch (e) {
  console.error(`${url}: ${(e as Error).message}`);
  process.exit(1);
}
