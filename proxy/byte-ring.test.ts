// The ring the bodies travel to the judging thread in: contiguous pieces, taken back first in
// first out, never one over another.
import { describe, expect, test } from 'vitest';
import { ByteRing } from './byte-ring.ts';

describe('ByteRing', () => {
  test('hands out pieces one after the other until it is full', () => {
    const ring = new ByteRing(100);
    expect(ring.reserve(40)).toEqual({ offset: 0, taken: 40 });
    expect(ring.reserve(60)).toEqual({ offset: 40, taken: 60 });
    expect(ring.fits(1)).toBe(false);
    expect(ring.reserve(1)).toBeNull();
    expect(ring.used).toBe(100);
  });

  test('skips the end of the block to keep a piece contiguous, and counts the skipped bytes as taken', () => {
    const ring = new ByteRing(100);
    ring.reserve(30);
    ring.reserve(50);
    ring.release(30);
    // 20 bytes left at the end, 30 free at the start: a piece of 25 goes to the start.
    expect(ring.reserve(25)).toEqual({ offset: 0, taken: 45 });
    expect(ring.used).toBe(95);
    // What is free now lies between the new piece and the oldest held one.
    expect(ring.reserve(5)).toEqual({ offset: 25, taken: 5 });
    expect(ring.reserve(1)).toBeNull();
  });

  test('refuses a piece that is free in total but in no single stretch', () => {
    const ring = new ByteRing(100);
    ring.reserve(30);
    ring.reserve(50);
    ring.release(30);
    // 20 free at the end and 30 at the start: 35 fits neither.
    expect(ring.fits(35)).toBe(false);
    expect(ring.reserve(35)).toBeNull();
    expect(ring.used).toBe(50);
  });

  test('starts again at the beginning once everything is released', () => {
    const ring = new ByteRing(100);
    ring.reserve(70);
    ring.release(70);
    expect(ring.reserve(90)).toEqual({ offset: 0, taken: 90 });
    ring.clear();
    expect(ring.used).toBe(0);
    expect(ring.reserve(100)).toEqual({ offset: 0, taken: 100 });
  });

  test('pieces held at the same time never overlap, over many rounds of the ring', () => {
    const ring = new ByteRing(1000);
    const held: { offset: number; size: number; taken: number }[] = [];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let step = 0; step < 5000; step += 1) {
      const size = 1 + (next() % 300);
      const piece = ring.reserve(size);
      if (piece) {
        expect(piece.offset + size).toBeLessThanOrEqual(1000);
        for (const other of held)
          expect(piece.offset + size <= other.offset || other.offset + other.size <= piece.offset).toBe(true);
        held.push({ offset: piece.offset, size, taken: piece.taken });
      }
      if (!piece || next() % 3 === 0) {
        const released = held.splice(0, 1 + (next() % Math.max(1, held.length)));
        ring.release(released.reduce((sum, p) => sum + p.taken, 0));
      }
      expect(ring.used).toBe(held.reduce((sum, p) => sum + p.taken, 0));
    }
  });
});
