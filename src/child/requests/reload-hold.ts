// What a call to a child waits for while the child restarts on purpose (a reload: stop, then
// start): the restart's end, so the call goes to the new process instead of failing because
// none runs for a moment. A crash holds nothing.
const ignore = () => {};

export class ReloadHold {
  /** Settles when the restart under way is over (however it ended). */
  #held: Promise<void> | undefined;

  /** Calls that arrive while `restart` runs wait for it. */
  during(restart: Promise<unknown>): void {
    const held = restart.then(ignore, ignore);
    this.#held = held;
    void held.then(() => {
      if (this.#held === held) this.#held = undefined;
    });
  }

  /** Settles once no restart is under way (undefined when none is). */
  passed(): Promise<void> | undefined {
    return this.#held;
  }
}
