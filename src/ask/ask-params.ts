import { randomUUID } from 'node:crypto';
import type { AskKind, FormQuestion, SamplingQuestion, UrlQuestion } from './client-ask.js';

/** The client capabilities that matter for asking, as either era declares them. */
export interface AskCapabilities {
  elicitation?: { form?: unknown; url?: unknown };
  sampling?: unknown;
  roots?: unknown;
}

/** Whether `capabilities` let the client answer `kind`. */
export function clientCan(capabilities: AskCapabilities | undefined, kind: AskKind): boolean {
  if (!capabilities) return false;
  const { elicitation } = capabilities;
  switch (kind) {
    case 'form':
      // A bare `elicitation: {}` means form mode (the rule from before modes existed).
      return !!elicitation && (!!elicitation.form || (!elicitation.url && !elicitation.form));
    case 'url':
      return !!elicitation?.url;
    case 'sampling':
      return !!capabilities.sampling;
    case 'roots':
      return !!capabilities.roots;
  }
}

export function formParams(question: FormQuestion): Record<string, unknown> {
  return { mode: 'form', message: question.message, requestedSchema: question.requestedSchema };
}

/** URL-mode params; the initialize era also carries an `elicitationId` (2026-07-28 has none). */
export function urlParams(question: UrlQuestion, withId: boolean): Record<string, unknown> {
  const params: Record<string, unknown> = { mode: 'url', message: question.message, url: question.url };
  if (withId) params.elicitationId = question.elicitationId ?? randomUUID();
  return params;
}

export function samplingParams(question: SamplingQuestion): Record<string, unknown> {
  const { key: _key, ...params } = question;
  return params;
}
