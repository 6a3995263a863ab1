import type { z } from 'zod';

/**
 * One zod issue as a phrase a user reads naturally ("must be at most 10"), instead of zod's
 * "Too big: expected number to be <=10". The caller puts the field or flag name in front.
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint'
        ? `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}`
        : `must have at most ${String(issue.maximum)} ${unit(issue.origin)}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint'
        ? `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${String(issue.minimum)}`
        : `must have at least ${String(issue.minimum)} ${unit(issue.origin)}`;
    case 'invalid_type':
      return `must be ${ARTICLE[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'must be an absolute URL' : `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `has unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
    default:
      return issue.message;
  }
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
};

function unit(origin: string): string {
  if (origin === 'string') return 'characters';
  if (origin === 'array' || origin === 'set') return 'items';
  return 'entries';
}
