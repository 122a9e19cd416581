import type { PaymentMethod } from "@payaccept/contracts";

/**
 * Method marks drawn here as plain inline SVG (no files, no fonts to fetch, nothing a strict CSP
 * blocks): simple shapes in each scheme's recognisable colours, not copies of the trademark files.
 * They are decoration next to a text label, so hidden from screen readers.
 */
const mark = { class: "mark", height: 24, "aria-hidden": "true", focusable: "false" } as const;
const sans = "Arial, Helvetica, sans-serif";

/** SBP: four folded ribbons (green, blue, orange, violet) and the letters СБП. */
export function SbpMark() {
  return (
    <svg {...mark} viewBox="0 0 76 32" width={57} data-mark="sbp">
      <path d="M3 4 l9 5 v14 l-9 5 z" fill="#5b57a2" />
      <path d="M12 9 l9 -5 v10 l-9 5 z" fill="#1487c9" />
      <path d="M12 19 l9 -5 v14 l-9 -5 z" fill="#f6921e" />
      <path d="M21 4 l9 5 l-9 5 z" fill="#0fa04b" />
      <path d="M21 28 l9 -5 v-9 l-9 5 z" fill="#0b8e42" />
      <text x="34" y="22" font-family={sans} font-size="15" font-weight="700" fill="#1f1f1f">
        СБП
      </text>
    </svg>
  );
}

/** Mir: the word МИР in the scheme's green with a light stroke of its gradient above. */
export function MirMark() {
  return (
    <svg {...mark} viewBox="0 0 48 32" width={36} data-mark="mir">
      <rect x="0.5" y="0.5" width="47" height="31" rx="4" fill="#fff" stroke="#d0d7de" />
      <rect x="6" y="7" width="36" height="3" rx="1.5" fill="#00a0e3" />
      <text x="24" y="24" text-anchor="middle" font-family={sans} font-size="13" font-weight="700" fill="#0f754e">
        МИР
      </text>
    </svg>
  );
}

/** Visa: the word VISA, bold italic, in the scheme's deep blue. */
export function VisaMark() {
  return (
    <svg {...mark} viewBox="0 0 48 32" width={36} data-mark="visa">
      <rect x="0.5" y="0.5" width="47" height="31" rx="4" fill="#fff" stroke="#d0d7de" />
      <text x="24" y="21" text-anchor="middle" font-family={sans} font-size="14" font-weight="700" font-style="italic" fill="#1a1f71">
        VISA
      </text>
    </svg>
  );
}

/** Mastercard: two overlapping circles, red and yellow, orange where they meet. */
export function MastercardMark() {
  return (
    <svg {...mark} viewBox="0 0 48 32" width={36} data-mark="mastercard">
      <rect x="0.5" y="0.5" width="47" height="31" rx="4" fill="#fff" stroke="#d0d7de" />
      <circle cx="19" cy="16" r="9" fill="#eb001b" />
      <circle cx="29" cy="16" r="9" fill="#f79e1b" />
      <path d="M24 8.5 a9 9 0 0 1 0 15 a9 9 0 0 1 0 -15 z" fill="#ff5f00" />
    </svg>
  );
}

/** The marks of a method: SBP's, or the card networks the acquirer takes. */
export function MethodMarks(props: { method: PaymentMethod }) {
  return (
    <span class="marks">
      {props.method === "SBP" ? (
        <SbpMark />
      ) : (
        <>
          <MirMark />
          <VisaMark />
          <MastercardMark />
        </>
      )}
    </span>
  );
}
