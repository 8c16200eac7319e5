/** The JSON Schema dialect of every schema kpx-check publishes: the identifier ajv knows, letter for letter. */
export const JSON_SCHEMA_DRAFT_07 = 'http://json-schema.org/draft-07/schema#' // eslint-disable-line unicorn/prefer-https -- an identifier, never fetched
