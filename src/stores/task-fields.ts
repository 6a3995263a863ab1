import type { TaskOutcome, TaskRecord, TaskStatus } from '../tasks/task-store.js';

const STATUSES: readonly string[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** A task as a Redis hash: flat string fields, so that a script can move its status without JSON. */
export function taskFields(record: TaskRecord, owner: string): string[] {
  const fields = [
    'taskId',
    record.taskId,
    'caller',
    record.caller,
    'toolName',
    record.toolName,
    'status',
    record.status,
    'createdAt',
    String(record.createdAt),
    'lastUpdatedAt',
    String(record.lastUpdatedAt),
    'ttlMs',
    String(record.ttlMs),
    'pollIntervalMs',
    String(record.pollIntervalMs),
    'owner',
    owner,
  ];
  if (record.statusMessage !== undefined) fields.push('statusMessage', record.statusMessage);
  return fields;
}

/**
 * The task a hash holds, or `undefined` when the hash is not one this bridge wrote (a foreign or
 * corrupt value under our keys): the caller warns and treats it as absent.
 */
export function recordOf(fields: Record<string, string | undefined>): TaskRecord | undefined {
  const { taskId, caller, toolName, status } = fields;
  const createdAt = Number(fields.createdAt);
  const lastUpdatedAt = Number(fields.lastUpdatedAt);
  const ttlMs = Number(fields.ttlMs);
  const pollIntervalMs = Number(fields.pollIntervalMs);
  if (
    !taskId ||
    !caller ||
    toolName === undefined ||
    !status ||
    !STATUSES.includes(status) ||
    ![createdAt, lastUpdatedAt, ttlMs, pollIntervalMs].every(Number.isFinite)
  ) {
    return undefined;
  }
  const record: TaskRecord = {
    taskId,
    caller,
    toolName,
    status: status as TaskStatus,
    createdAt,
    lastUpdatedAt,
    ttlMs,
    pollIntervalMs,
  };
  if (fields.statusMessage !== undefined) record.statusMessage = fields.statusMessage;
  if (fields.inputRequests !== undefined) {
    try {
      const requests = JSON.parse(fields.inputRequests) as TaskRecord['inputRequests'];
      if (typeof requests !== 'object' || requests === null) return undefined;
      record.inputRequests = requests;
    } catch {
      return undefined;
    }
  }
  if (fields.outcome !== undefined) {
    const outcome = parseOutcome(fields.outcome);
    if (!outcome) return undefined;
    record.outcome = outcome;
  }
  return record;
}

function parseOutcome(text: string): TaskOutcome | undefined {
  try {
    const outcome = JSON.parse(text) as TaskOutcome;
    if (outcome.kind === 'result' && Array.isArray(outcome.result?.content)) return outcome;
    if (outcome.kind === 'error' && typeof outcome.error?.code === 'number') return outcome;
  } catch {}
  return undefined;
}

/** A task relayed in an event message, checked like a stored one. */
export function relayedRecord(value: unknown): TaskRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const task = value as Record<string, unknown>;
  const fields: Record<string, string | undefined> = {};
  for (const [key, field] of Object.entries(task)) {
    if (field === undefined) continue;
    fields[key] = key === 'outcome' || key === 'inputRequests' ? JSON.stringify(field) : String(field);
  }
  return recordOf(fields);
}
