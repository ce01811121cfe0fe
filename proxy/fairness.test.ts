// The judging budget: a client that spent its share of a window waits for the next one; the
// others do not wait; a new window starts every client afresh.
import { expect, test } from 'vitest';
import { CLIENT_JUDGING_SHARE, FAIRNESS_WINDOW_MS, JudgingBudget } from './fairness.ts';

function budgetAt(): { budget: JudgingBudget; advance: (ms: number) => void } {
  let now = 1_000;
  return { budget: new JudgingBudget(() => now), advance: (ms) => (now += ms) };
}

const share = (CLIENT_JUDGING_SHARE * FAIRNESS_WINDOW_MS) / 1000;

test('a client within its share does not wait', () => {
  const { budget } = budgetAt();
  budget.charge('a', share / 2);
  expect(budget.delayFor('a')).toBe(0);
});

test('a client past its share, while another client is judged too, waits for the next window; the other does not', () => {
  const { budget, advance } = budgetAt();
  budget.delayFor('a');
  advance(10);
  budget.charge('a', share);
  budget.charge('b', share / 10);
  expect(budget.delayFor('a')).toBe(FAIRNESS_WINDOW_MS - 10);
  expect(budget.delayFor('b')).toBe(0);
});

test('a client alone is never held back, whatever it spends', () => {
  const { budget } = budgetAt();
  budget.charge('a', 10 * share);
  expect(budget.delayFor('a')).toBe(0);
});

test('the next window starts every client afresh', () => {
  const { budget, advance } = budgetAt();
  budget.charge('a', 2 * share);
  budget.charge('b', share);
  advance(FAIRNESS_WINDOW_MS);
  expect(budget.delayFor('a')).toBe(0);
});
