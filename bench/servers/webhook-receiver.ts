/**
 * The merchant's webhook endpoint for the webhook bench, in its own process so that the bench's
 * own work (publishing events, pacing cancels) never delays an answer. It is the test receiver
 * (services/webhook-dispatcher/test-support) answering 200 at once and noting when each
 * (paymentId, status) first arrived; `GET /deliveries/<n>` returns the arrivals after the first n.
 * Listens on a free port, which its first line names.
 */
import { startReceiver } from "../../services/webhook-dispatcher/test-support/receiver.ts";

const arrivals: [key: string, at: number][] = [];
const seen = new Set<string>();
const receiver = startReceiver((request) => {
  const since = /^\/deliveries\/(\d+)$/.exec(request.path)?.[1];
  if (since !== undefined) return Response.json(arrivals.slice(Number(since)));
  const body = JSON.parse(request.body) as { id: string; status: string };
  const key = `${body.id}:${body.status}`;
  if (!seen.has(key)) {
    seen.add(key);
    arrivals.push([key, request.at]);
  }
  receiver.requests.length = 0; // headers and bodies are not needed here; keep memory flat
  return new Response("ok");
});
console.log(`listening ${new URL(receiver.url).port}`);
