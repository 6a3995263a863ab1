import { quote } from '../quote-input.js';
import { compileValidator, listViolations, type Violation } from '../validate-arguments.js';
import type {
  AskKind,
  ClientRoot,
  FormAnswer,
  FormQuestion,
  SamplingAnswer,
  UrlAnswer,
} from './client-ask.js';
import { AskInterrupt } from './client-ask.js';

/** The client's answer does not have the shape its question asked for. */
export class InvalidAnswerError extends AskInterrupt {
  override readonly name = 'InvalidAnswerError';
}

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

// Forms are asked again with the same schema every round: compile each schema once.
const formValidators = new Map<string, (value: unknown) => Violation[]>();

/** Checks an elicitation answer, and accepted content against the form's schema. */
export function checkFormAnswer(key: string, question: FormQuestion, raw: unknown): FormAnswer {
  const answer = object(key, 'elicitation', raw);
  if (!ACTIONS.has(answer.action as string)) {
    throw invalid(
      key,
      'elicitation',
      `"action" must be accept, decline or cancel (got ${quote(answer.action)})`,
    );
  }
  if (answer.action !== 'accept') return { action: answer.action as 'decline' | 'cancel' };
  const content = answer.content ?? {};
  const cacheKey = JSON.stringify(question.requestedSchema);
  let validate = formValidators.get(cacheKey);
  if (!validate) {
    validate = compileValidator(question.requestedSchema);
    if (formValidators.size > 500) formValidators.clear();
    formValidators.set(cacheKey, validate);
  }
  const violations = validate(content);
  if (violations.length > 0) {
    const lines = listViolations(violations, {
      show: (path, message) => `${path || '(content)'} ${message}`,
      more: (count) => `and ${count} more`,
    });
    throw invalid(
      key,
      'elicitation',
      `the accepted content does not match the requested schema: ${lines.join('; ')}`,
    );
  }
  return { action: 'accept', content: content as Extract<FormAnswer, { action: 'accept' }>['content'] };
}

export function checkUrlAnswer(key: string, raw: unknown): UrlAnswer {
  const answer = object(key, 'elicitation', raw);
  if (!ACTIONS.has(answer.action as string)) {
    throw invalid(
      key,
      'elicitation',
      `"action" must be accept, decline or cancel (got ${quote(answer.action)})`,
    );
  }
  return { action: answer.action as UrlAnswer['action'] };
}

export function checkSamplingAnswer(key: string, raw: unknown): SamplingAnswer {
  const answer = object(key, 'sampling', raw);
  const { content } = answer;
  if (answer.role !== 'assistant') throw invalid(key, 'sampling', '"role" must be "assistant"');
  if (typeof content !== 'object' || content === null)
    throw invalid(key, 'sampling', '"content" must be a content block or an array of them');
  if (typeof answer.model !== 'string') throw invalid(key, 'sampling', '"model" must be a string');
  return answer as unknown as SamplingAnswer;
}

export function checkRootsAnswer(key: string, raw: unknown): ClientRoot[] {
  const answer = object(key, 'roots', raw);
  const { roots } = answer;
  if (!Array.isArray(roots) || !roots.every((root) => typeof root?.uri === 'string')) {
    throw invalid(key, 'roots', '"roots" must be an array of {uri, name?}');
  }
  return roots.map((root: { uri: string; name?: unknown }) =>
    typeof root.name === 'string' ? { uri: root.uri, name: root.name } : { uri: root.uri },
  );
}

function object(key: string, kind: string, raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid(key, kind, 'it is not an object');
  return raw as Record<string, unknown>;
}

function invalid(key: string, kind: string, reason: string): InvalidAnswerError {
  return new InvalidAnswerError(`Invalid answer to the ${kind} request "${key}": ${reason}.`);
}

/** The spec's request method of each kind of question. */
export const ASK_METHODS: Record<AskKind, 'elicitation/create' | 'sampling/createMessage' | 'roots/list'> = {
  form: 'elicitation/create',
  url: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};
