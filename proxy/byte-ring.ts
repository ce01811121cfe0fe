// A fixed block of shared memory, handed out in contiguous pieces and taken back in the order
// it was handed out. The forwarding thread copies bodies into it for the judging thread: a
// fresh buffer per body cost more than judging it (each one is memory outside the heap that
// the collector has to track and free), while copying into memory allocated once costs little.

export interface RingPiece {
  offset: number;
  /** Bytes this piece holds until released: its size, plus the end of the block skipped to keep it contiguous. */
  taken: number;
}

export class ByteRing {
  readonly buffer: SharedArrayBuffer;
  readonly bytes: Uint8Array;
  /** Bytes handed out and not yet released, skipped ends included. */
  used = 0;
  private head = 0;

  constructor(readonly capacity: number) {
    this.buffer = new SharedArrayBuffer(capacity);
    this.bytes = new Uint8Array(this.buffer);
  }

  /** Whether a piece of `size` bytes can be handed out now. */
  fits(size: number): boolean {
    return this.place(size) !== null;
  }

  /** Hands out a piece of `size` bytes; null when it does not fit now. */
  reserve(size: number): RingPiece | null {
    const piece = this.place(size);
    if (!piece) return null;
    this.used += piece.taken;
    this.head = piece.offset + size;
    return piece;
  }

  /** Takes back the oldest pieces still held, `taken` bytes of them (the sum of their `taken`). */
  release(taken: number): void {
    this.used = Math.max(0, this.used - taken);
    if (this.used === 0) this.head = 0;
  }

  /** Takes everything back. */
  clear(): void {
    this.used = 0;
    this.head = 0;
  }

  private place(size: number): RingPiece | null {
    if (size > this.capacity - this.used) return null;
    const tail = this.head - this.used;
    // Held bytes wrap around the end: the free space is one stretch from head on, and it fits.
    if (tail < 0) return { offset: this.head, taken: size };
    if (this.capacity - this.head >= size) return { offset: this.head, taken: size };
    // Not enough room before the end: skip it and start again at 0, if that is free far enough.
    if (tail >= size) return { offset: 0, taken: this.capacity - this.head + size };
    return null;
  }
}
