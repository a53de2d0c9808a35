/** A change of a shown value: a whole new value, or one worked out from the current one. */
export type ValueChange<T> = T | ((current: T | undefined) => T);

/** Applies `change` to `current`. */
export function applyChange<T>(current: T | undefined, change: ValueChange<T>): T {
  return change instanceof Function ? change(current) : change;
}

/**
 * The order of a value's loads and of the changes shown meanwhile (`useResource`'s bookkeeping, kept
 * apart from Preact). A load's answer may predate what the page learnt while it was under way: a
 * live event read while the list loaded, or the answer of a request that changed the value. Shown
 * as it came, the answer would hide that for good, since the event is not sent again. So only the
 * latest load's answer is shown, and the changes made since it started are applied again on top.
 *
 * Contract: `answer` returns undefined for a load that a later `begin` overtook (its answer is
 * dropped); otherwise the answer with every change `record`ed since that load began, in order.
 * Changes are kept only while a load is under way.
 */
export class LoadSequence<T> {
  #latest = 0;
  #underWay = false;
  #changes: Array<ValueChange<T>> = [];

  /** A load starts: returns its number, which its answer is given with. */
  begin(): number {
    this.#latest += 1;
    this.#underWay = true;
    this.#changes = [];
    return this.#latest;
  }

  /** A change shown now: kept to be applied again on top of the answer of the load under way. */
  record(change: ValueChange<T>): void {
    if (this.#underWay) this.#changes.push(change);
  }

  /** The value to show for load `load`'s answer `value`, or undefined to drop it. */
  answer(load: number, value: T): { value: T } | undefined {
    if (load !== this.#latest) return undefined;
    this.#underWay = false;
    const changes = this.#changes;
    this.#changes = [];
    return { value: changes.reduce<T>((current, change) => applyChange(current, change), value) };
  }

  /** Load `load` failed: nothing is kept for it any more if it was the latest. */
  fail(load: number): boolean {
    if (load !== this.#latest) return false;
    this.#underWay = false;
    this.#changes = [];
    return true;
  }
}
