// The lax readings now live beside the request-body validation that uses them too (modules/ may not import rest/).
export * from '../modules/common/lax-parsing.ts';
