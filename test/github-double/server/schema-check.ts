import { resolveRef, type Schema } from './openapi.js';

// A small OpenAPI 3.0 validator: enough to hold requests to GitHub's documented bodies and
// to self-check the double's own answers and webhook payloads against the same spec.

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: unknown, value: unknown): boolean {
  const actual = typeOf(value);
  const wanted = Array.isArray(expected) ? expected : [expected];
  return wanted.some((t) => t === actual || (t === 'number' && actual === 'integer'));
}

function allowsNull(schema: Schema): boolean {
  if (schema['nullable'] === true) return true;
  const t = schema['type'];
  if (t === 'null' || (Array.isArray(t) && t.includes('null'))) return true;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.some((a) => allowsNull(resolveRef(a) ?? {}))) return true;
  }
  if (Array.isArray(schema['enum']) && (schema['enum'] as unknown[]).includes(null)) return true;
  return false;
}

// Deep check used for the double's own output. Extra properties are allowed: GitHub adds
// fields all the time, and clients must tolerate them.
export function checkValue(schemaIn: unknown, value: unknown, path = '$', depth = 0): string[] {
  const schema = resolveRef(schemaIn);
  if (!schema || depth > 40) return [];
  if (value === null) return allowsNull(schema) ? [] : [`${path} is null but not nullable`];
  const errors: string[] = [];
  const allOf = schema['allOf'];
  if (Array.isArray(allOf)) {
    for (const part of allOf) errors.push(...checkValue(part, value, path, depth + 1));
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alts = schema[key];
    if (!Array.isArray(alts) || alts.length === 0) continue;
    const results = alts.map((a) => checkValue(a, value, path, depth + 1));
    if (!results.some((r) => r.length === 0)) {
      errors.push(`${path} matches no ${key} alternative (${results[0]?.[0] ?? ''})`);
    }
  }
  const type = schema['type'];
  if (type !== undefined && !typeMatches(type, value)) {
    return [...errors, `${path} should be ${JSON.stringify(type)}, is ${typeOf(value)}`];
  }
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && !enumValues.includes(value)) {
    errors.push(`${path} = ${JSON.stringify(value)} not in enum ${JSON.stringify(enumValues)}`);
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const required = schema['required'];
    if (Array.isArray(required)) {
      for (const name of required as string[]) {
        if (obj[name] === undefined) errors.push(`${path}.${name} is required`);
      }
    }
    const props = (schema['properties'] ?? {}) as Record<string, unknown>;
    for (const [name, sub] of Object.entries(props)) {
      if (obj[name] !== undefined)
        errors.push(...checkValue(sub, obj[name], `${path}.${name}`, depth + 1));
    }
  }
  if (Array.isArray(value) && schema['items']) {
    value.forEach((item, i) =>
      errors.push(...checkValue(schema['items'], item, `${path}[${i}]`, depth + 1)),
    );
  }
  return errors;
}

interface Shape {
  properties: Record<string, unknown>;
  required: string[];
  open: boolean;
  type: unknown;
}

function flatten(schemaIn: unknown): Shape[] {
  const schema = resolveRef(schemaIn);
  if (!schema) return [];
  const alts = (schema['oneOf'] ?? schema['anyOf']) as unknown[] | undefined;
  if (Array.isArray(alts)) return alts.flatMap((a) => flatten(a));
  const shape: Shape = {
    properties: { ...((schema['properties'] ?? {}) as Record<string, unknown>) },
    required: [...((schema['required'] ?? []) as string[])],
    open: schema['additionalProperties'] !== undefined && schema['additionalProperties'] !== false,
    type: schema['type'],
  };
  const allOf = schema['allOf'];
  if (Array.isArray(allOf)) {
    for (const part of allOf) {
      for (const sub of flatten(part)) {
        Object.assign(shape.properties, sub.properties);
        shape.required.push(...sub.required);
        shape.open ||= sub.open;
        shape.type ??= sub.type;
      }
    }
  }
  return [shape];
}

// Top-level check of a request body: unknown or missing required properties, and
// primitive type mismatches, are what GitHub answers 422 for.
export function checkRequestBody(schema: Schema, body: unknown): string[] {
  const shapes = flatten(schema);
  if (shapes.length === 0) return [];
  let best: string[] | undefined;
  for (const shape of shapes) {
    const errors = checkShape(shape, body);
    if (errors.length === 0) return [];
    if (!best || errors.length < best.length) best = errors;
  }
  return best ?? [];
}

function checkShape(shape: Shape, body: unknown): string[] {
  if (shape.type !== undefined && !typeMatches(shape.type, body)) {
    return [`body should be ${JSON.stringify(shape.type)}, is ${typeOf(body)}`];
  }
  if (typeOf(body) !== 'object') return [];
  const obj = body as Record<string, unknown>;
  const errors: string[] = [];
  for (const name of shape.required) {
    if (obj[name] === undefined) errors.push(`missing required property "${name}"`);
  }
  for (const [name, value] of Object.entries(obj)) {
    const sub = shape.properties[name];
    if (sub === undefined) {
      if (!shape.open) errors.push(`unknown property "${name}"`);
      continue;
    }
    const s = resolveRef(sub);
    if (!s || value === undefined) continue;
    if (value === null) {
      if (!allowsNull(s)) errors.push(`property "${name}" is null but not nullable`);
      continue;
    }
    if (s['type'] !== undefined && !typeMatches(s['type'], value)) {
      errors.push(`property "${name}" should be ${JSON.stringify(s['type'])}, is ${typeOf(value)}`);
    } else if (Array.isArray(s['enum']) && !s['enum'].includes(value)) {
      errors.push(
        `property "${name}" = ${JSON.stringify(value)} not in ${JSON.stringify(s['enum'])}`,
      );
    }
  }
  return errors;
}
