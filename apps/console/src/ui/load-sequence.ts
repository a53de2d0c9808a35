/** A change of a shown value: a whole new value, or one worked out from the current one. */
export type ValueChange<T> = T | ((current: T | undefined) => T);

/** Applies `change` to `current`. */
export function applyChange<T>(current: T | undefined, change: ValueChange<T>): T {
  return change instanceof Function ? change(current) : change;
}

/**
 * The order of a value's loads and of the live changes shown meanwhile (`useResource`'s bookkeeping,
 * kept apart from Preact). A load's answer may predate a live event read while it was under way
 * (the list was read before the held call was recorded, its event came before the answer). Shown
 * as it came, the answer would hide the event for good, since it is not sent again. So only the
 * latest load's answer is shown, and the live changes made since it started are applied again on
 * top, in their order. (The answer of a request the page sent is not one: it may be older than the
 * load's, and applied again it could undo what the load read.)
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
