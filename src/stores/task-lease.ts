import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RedisConnection } from './redis-connection.js';

export interface TaskLeaseOptions {
  redis: RedisConnection;
  log: Logger;
  /** This instance's id. */
  instance: string;
  heartbeatMs: number;
  leaseMs: number;
  /** Fails one task of a dead instance (or of this one, shutting down) with `reason`. */
  fail: (taskId: string, reason: string) => Promise<unknown>;
}

/**
 * The heartbeat lease of one bridge instance on a shared task store. Each instance keeps the ids
 * of the tasks it runs in a set of its own and beats in a shared sorted set (score: last beat).
 * On every beat it also looks for instances silent longer than the lease: the first to claim one
 * (`ZREM` answers 1 to one caller only) fails its unfinished tasks with the reason, so no task
 * stays `working` forever after its process died.
 */
export class TaskLease {
  readonly runningPrefix: string;
  readonly runningKey: string;
  readonly #instances: string;
  readonly #options: TaskLeaseOptions;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: TaskLeaseOptions) {
    this.#options = options;
    const { namespace } = options.redis.address;
    this.runningPrefix = `${namespace}:running:`;
    this.runningKey = this.runningPrefix + options.instance;
    this.#instances = `${namespace}:instances`;
  }

  async start(): Promise<void> {
    await this.#beat();
    this.#timer = setInterval(() => {
      // A beat missed while Redis is away is retried at the next tick.
      this.#beat().catch((error) => this.#options.log.debug(`store heartbeat: ${describeError(error)}`));
    }, this.#options.heartbeatMs);
    this.#timer.unref();
  }

  /** Stops beating and fails what still runs here (`reason`), then leaves the instance set. */
  async stop(reason: string): Promise<void> {
    clearInterval(this.#timer);
    const { redis, instance } = this.#options;
    try {
      await this.#failAll(instance, reason);
      await redis.run((client) => client.sendCommand(['ZREM', this.#instances, instance]));
    } catch (error) {
      this.#options.log.debug(`store: leaving the instance set: ${describeError(error)}`);
    }
  }

  async #beat(): Promise<void> {
    const { redis, instance, leaseMs } = this.#options;
    const now = Date.now();
    await redis.run((client) => client.sendCommand(['ZADD', this.#instances, String(now), instance]));
    const silent = (await redis.run((client) =>
      client.sendCommand(['ZRANGEBYSCORE', this.#instances, '-inf', String(now - leaseMs)]),
    )) as string[];
    for (const other of silent) {
      if (other === instance) continue;
      const claimed = await redis.run((client) => client.sendCommand(['ZREM', this.#instances, other]));
      if (Number(claimed) !== 1) continue;
      const seconds = Math.round(leaseMs / 1000);
      await this.#failAll(
        other,
        `The bridge instance running this task stopped answering (no heartbeat for ${seconds} s); its work is lost. Run the tool again.`,
      );
      this.#options.log.warn(`store: instance ${other} went silent; its unfinished tasks are failed`);
    }
  }

  async #failAll(instance: string, reason: string): Promise<void> {
    const { redis } = this.#options;
    const key = this.runningPrefix + instance;
    const ids = (await redis.run((client) => client.sendCommand(['SMEMBERS', key]))) as string[];
    for (const taskId of ids) await this.#options.fail(taskId, reason);
    await redis.run((client) => client.sendCommand(['DEL', key]));
  }
}
