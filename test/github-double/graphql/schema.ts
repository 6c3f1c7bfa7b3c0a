import { schema } from '@octokit/graphql-schema';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

let cached: GraphQLSchema | undefined;

// Built from the introspection JSON: the package's SDL defines some fields twice, which
// buildSchema rejects.
export function githubSchema(): GraphQLSchema {
  cached ??= buildClientSchema(schema.json as unknown as IntrospectionQuery);
  return cached;
}
