// The proxy masks credentials in what it writes with the kit's one masking function.
export { maskCredentialQuery, MASK } from '../contract/index.ts';
