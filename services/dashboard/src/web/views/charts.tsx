import type { Page } from "../page.ts";

export type Bar = { key: string; value: number; title: string };

/** Bars are 10 units wide with a 2-unit gap, 100 units tall at the largest value. */
const BAR = 10;
const GAP = 2;

/**
 * A column chart drawn on the server as SVG: no script, no CDN. The SVG holds only the bars
 * (stretched to the width, so any screen fits them); the labels are HTML text around it, so they
 * keep their size on a phone. Each bar carries its figures in a <title> (hover, screen readers).
 */
export function BarChart(props: { id: string; caption: string; bars: Bar[]; maxLabel: string; axis: string[] }) {
  const max = Math.max(0, ...props.bars.map((b) => b.value));
  const width = props.bars.length * (BAR + GAP) - GAP;
  return (
    <figure class="chart" id={props.id}>
      <figcaption>{props.caption}</figcaption>
      <p class="chart-max">{props.maxLabel}</p>
      <svg viewBox={`0 0 ${Math.max(width, 1)} 100`} preserveAspectRatio="none" role="img" aria-label={props.caption}>
        {[25, 50, 75].map((y) => (
          <line class="grid" x1="0" x2={width} y1={y} y2={y} vector-effect="non-scaling-stroke" />
        ))}
        {props.bars.map((b, i) => {
          // A day with something on it stays visible however small it is next to the largest.
          const h = max === 0 || b.value === 0 ? 0 : Math.max(1.5, (b.value / max) * 100);
          return (
            <rect class="bar" x={i * (BAR + GAP)} y={100 - h} width={BAR} height={h} data-key={b.key} data-value={b.value}>
              <title>{b.title}</title>
            </rect>
          );
        })}
        <line class="base" x1="0" x2={width} y1="100" y2="100" vector-effect="non-scaling-stroke" />
      </svg>
      <p class="chart-axis">
        {props.axis.map((label) => (
          <span>{label}</span>
        ))}
      </p>
    </figure>
  );
}

/** A share as a labelled horizontal bar (SVG: the page's CSP allows no inline styles). */
export function ShareBar(props: { page: Page; label: string; share: number | undefined; detail: string; tone?: "ok" | "bad" }) {
  return (
    <div class="share">
      <p class="share-label">
        <span>{props.label}</span> <strong>{props.detail}</strong>
      </p>
      <svg viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label={`${props.label}: ${props.detail}`}>
        <rect class="track" x="0" y="0" width="100" height="6" />
        {props.share ? <rect class={`fill ${props.tone ?? "ok"}`} x="0" y="0" width={props.share} height="6" /> : null}
      </svg>
    </div>
  );
}
