/**
 * The payment page's only script (progressive enhancement: every screen works without it).
 * - follows the payment's status and method and reloads when either changes (a method switched in
 *   another tab reloads with a notice saying so);
 * - counts down the time left;
 * - checks the card number (Luhn), expiry and CVC before the form leaves for the provider;
 * - starts a payment with a single possible method without a click.
 */
import { isCardExpired, isValidCardNumber, parseCardExpiry } from "@payaccept/contracts/src/luhn.ts";
import { formatRemaining } from "../countdown.ts";
import { METHOD_CHANGED } from "../notice-codes.ts";

const RECONNECT_MS = 5000;

function followStatus(): void {
  const { status, method, events } = document.body.dataset;
  if (!events || !("EventSource" in window)) return;
  const connect = () => {
    const source = new EventSource(events);
    source.addEventListener("status", (e) => {
      const next = JSON.parse((e as MessageEvent<string>).data) as { status?: string; method?: string | null };
      if (!next.status) return;
      const switched = next.status === status && (next.method ?? undefined) !== method;
      if (next.status !== status || switched) {
        source.close();
        location.replace(switched ? `${location.pathname}?notice=${METHOD_CHANGED}` : location.pathname);
      }
    });
    // A refused stream (payments briefly down) is closed for good by the browser: try again later.
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, RECONNECT_MS);
    });
  };
  connect();
}

function runCountdowns(): void {
  const clocks = document.querySelectorAll<HTMLTimeElement>("time[data-expires-at]");
  if (clocks.length === 0) return;
  const tick = () => {
    for (const clock of clocks) clock.textContent = formatRemaining(Date.parse(clock.dataset.expiresAt ?? "") - Date.now());
  };
  tick();
  setInterval(tick, 1000);
}

const CARD_CHECKS: [field: string, valid: (value: string) => boolean][] = [
  ["pan", isValidCardNumber],
  [
    "exp",
    (v) => {
      const expiry = parseCardExpiry(v);
      return expiry !== null && !isCardExpired(expiry, new Date());
    },
  ],
  ["cvc", (v) => /^\d{3,4}$/.test(v.trim())],
];

function guardCardForm(): void {
  const form = document.querySelector<HTMLFormElement>("form[data-card-form]");
  if (!form) return;
  // The script's checks replace the browser's generic bubbles with our own, clearer messages.
  form.noValidate = true;
  form.addEventListener("submit", (event) => {
    let firstInvalid: HTMLInputElement | undefined;
    for (const [name, valid] of CARD_CHECKS) {
      const input = form.elements.namedItem(name);
      const message = document.getElementById(`${name}-error`);
      if (!(input instanceof HTMLInputElement) || !message) continue;
      const ok = valid(input.value);
      input.setAttribute("aria-invalid", String(!ok));
      message.hidden = ok;
      if (!ok) firstInvalid ??= input;
    }
    if (firstInvalid) {
      event.preventDefault();
      firstInvalid.focus();
    }
  });
}

/** Submits through the form's one button, so its method value is part of the request. */
function autostart(): void {
  const form = document.querySelector<HTMLFormElement>("form[data-autostart]");
  const button = form?.querySelector<HTMLButtonElement>("button[type=submit]");
  if (form && button) form.requestSubmit(button);
}

followStatus();
runCountdowns();
guardCardForm();
autostart();
