// How a long poll learns that its client went away.

/**
 * The part of AbortSignal long polls use (an AbortSignal is one). The server hands each request a
 * plain object instead: an AbortController per request costs more than routing it.
 */
export interface ClientSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A ClientSignal the server aborts when the client disconnects. */
export class Disconnection implements ClientSignal {
  aborted = false;
  private listeners: (() => void)[] | undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i >= 0) this.listeners?.splice(i, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const l of listeners) l();
  }
}
