/** The fake bank's pages: plain HTML forms a browser or a test's HTTP client submits. */

/** What a page shows of a bank payment. */
type Shown = { amount: number; description: string | null; requestKey: string | null };

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const rubles = (kopecks: number) => `${Math.floor(kopecks / 100)},${String(kopecks % 100).padStart(2, "0")} ₽`;
const page = (title: string, body: string) =>
  `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${body}</body></html>`;

export const cardForm = (p: Shown, action: string, problem?: string) =>
  page(
    "Т-Банк: оплата картой",
    `<p class="amount">${rubles(p.amount)}</p>${p.description ? `<p>${esc(p.description)}</p>` : ""}${problem ? `<p role="alert">${esc(problem)}</p>` : ""}
<form method="post" action="${esc(action)}">
<label>Номер карты <input name="pan" autocomplete="cc-number" required></label>
<label>Срок действия <input name="exp" placeholder="ММ/ГГ" required></label>
<label>CVC <input name="cvv" required></label>
<button type="submit">Оплатить</button>
</form>`,
  );

export const threeDsPage = (action: string) =>
  page("3-D Secure", `<form method="post" action="${esc(action)}"><label>Код из SMS <input name="code" required></label><button type="submit">Подтвердить</button></form>`);

export const qrApp = (p: Shown, action: string) =>
  page(
    "Приложение банка: оплата по QR",
    `<p class="amount">${rubles(p.amount)}</p>
<form method="post" action="${esc(action)}">
<button name="action" value="pay">Оплатить</button>
${p.requestKey ? `<button name="action" value="bind">Оплатить и привязать счёт</button>` : ""}
<button name="action" value="decline">Отклонить</button>
</form>`,
  );

export const bindPage = (action: string) =>
  page(
    "Приложение банка: привязка счёта",
    `<form method="post" action="${esc(action)}"><button name="action" value="bind">Привязать</button><button name="action" value="refuse">Отказаться</button></form>`,
  );

export const closedPage = (text: string) => page(text, "");
