// The 422 items now live beside the request-body validation that builds them too (modules/ may not import rest/).
export * from '../modules/common/pydantic-errors.ts';
