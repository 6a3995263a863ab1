import { createRequire } from 'node:module';

/**
 * graphql-js as CommonJS: the copy graphql-http and @graphql-tools load. Schema pieces and errors
 * handed to the test server must come from this copy, or graphql-js refuses them as objects
 * "from another module or realm" (this test file's own `import 'graphql'` gets the ESM copy).
 */
export const graphqlCjs = createRequire(import.meta.url)('graphql') as typeof import('graphql');
