import type { ComponentChildren } from 'preact';

/**
 * Facts about one thing as a definition list of `Fact`s. By default they wrap in a row, each label
 * above its value; `columns` sets each label beside its value instead (the workflow and schedule pages).
 */
export function Facts({ columns, children }: { columns?: boolean; children: ComponentChildren }) {
  return <dl class={columns ? 'facts facts-columns' : 'facts'}>{children}</dl>;
}

/** One fact of `Facts`: its label (`<dt>`) and value (`<dd>`); `wide` gives it a row of its own. */
export function Fact({
  label,
  wide,
  children,
}: {
  /** The term. */
  label: string;
  /** Whether it takes a whole row (a long value, such as an error). */
  wide?: boolean;
  /** The value. */
  children: ComponentChildren;
}) {
  return (
    <div class={wide ? 'wide' : undefined}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
