// Judges CREATE-202-ACCEPTED: a 202 answer, whose body is not shown, is noted.
import type { ExchangeCheck } from './exchange.ts';

export const acceptedWithoutBody: ExchangeCheck = {
  name: 'acceptedWithoutBody',
  appliesTo: (x) => x.response.status === 202 && x.operation !== null,
  run: (contract) => [
    contract.finding('CREATE-202-ACCEPTED', 'response', {
      message: 'answered 202 Accepted; the body of 202 is not shown, so body checks were skipped',
    }),
  ],
};
