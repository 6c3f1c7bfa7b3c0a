import { sign } from '@octokit/webhooks-methods';
import type { Core, WebhookInput } from '../core.js';
import { isoNow, uuid } from '../ids.js';
import type { Account, Delivery } from '../model.js';
import { userJson } from '../render/accounts.js';
import { repoJson } from '../render/repos.js';
import { webhookSchema } from '../server/openapi.js';
import { checkValue } from '../server/schema-check.js';
import { postDelivery } from './post.js';
import { seededRandom } from '../seeded-random.js';

const HOOK_ID = 480_000_001;
const RECEIVER_TIMEOUT_MS = 10_000;

export function orgJson(core: Core, org: Account): Record<string, unknown> {
  const api = `${core.apiUrl}/orgs/${org.login}`;
  return {
    login: org.login,
    id: org.id,
    node_id: org.nodeId,
    url: api,
    repos_url: `${api}/repos`,
    events_url: `${api}/events`,
    hooks_url: `${api}/hooks`,
    issues_url: `${api}/issues`,
    members_url: `${api}/members{/member}`,
    public_members_url: `${api}/public_members{/member}`,
    avatar_url: `${core.url}/avatars/u/${org.id}?v=4`,
    description: null,
  };
}

/**
 * How GitHub may deliver: late, out of order, and now and then twice with the same
 * X-GitHub-Delivery id (GitHub documents neither order nor exactly-once delivery). Seeded, so
 * a failing seed can be run again.
 */
export interface DeliveryChaos {
  seed: number;
  /** Each post waits a random 0..maxDelayMs first (default 40), so later events overtake. */
  maxDelayMs?: number;
  /** Share of deliveries posted a second time, same id and body (default 0.1). */
  duplicateRate?: number;
}

// By default deliveries are ordered per repository and different repositories interleave;
// with `chaos` each one is delayed on its own, so they arrive in any order, some twice.
export class WebhookSender {
  private readonly chains = new Map<string, Promise<unknown>>();
  private pending = 0;
  private readonly random: (() => number) | undefined;

  constructor(
    private readonly core: Core,
    private readonly chaos?: DeliveryChaos,
  ) {
    this.random = chaos ? seededRandom(chaos.seed) : undefined;
  }

  /** Whether deliveries may overtake each other: then senders need not wait for answers. */
  get reorders(): boolean {
    return this.chaos !== undefined;
  }

  get inFlight(): number {
    return this.pending;
  }

  send(input: WebhookInput): Promise<Delivery | null> {
    const { core } = this;
    if (!core.delivers(input.event)) return Promise.resolve(null);
    const inst = input.repo ? core.installationFor(input.repo) : undefined;
    // An App hears only of the repositories it is installed on: nothing of a fork's own issues,
    // PRs or pushes, unless the fork's owner installed it too.
    if (input.repo && !inst) return Promise.resolve(null);
    // A suspended installation's events are blocked with its access (GitHub's "Suspend an app
    // installation"); the suspension's own events are the installation's, with no repository.
    if (input.repo && inst?.suspendedAt) return Promise.resolve(null);
    const payload: Record<string, unknown> = {};
    if (input.action) payload['action'] = input.action;
    Object.assign(payload, input.body);
    if (input.repo) {
      payload['repository'] = repoJson(core, input.repo);
      if (input.repo.owner.type === 'Organization')
        payload['organization'] = orgJson(core, input.repo.owner);
    }
    payload['sender'] = userJson(core, input.sender);
    if (inst) payload['installation'] = { id: inst.id, node_id: inst.nodeId };
    if (core.options.selfCheck) {
      const schema = webhookSchema(input.event, input.action);
      const where = `webhook ${input.event}${input.action ? `.${input.action}` : ''}`;
      if (!schema) core.selfCheck(where, ['no schema in x-webhooks']);
      else core.selfCheck(where, checkValue(schema, payload).slice(0, 10));
    }
    const guid = uuid();
    const delivery: Delivery = {
      id: core.ids.next('delivery'),
      guid,
      event: input.event,
      action: input.action ?? null,
      installationId: inst?.id ?? null,
      repositoryId: input.repo?.id ?? null,
      repoKey: input.repo?.fullName.toLowerCase() ?? '(app)',
      payload,
      requestHeaders: {
        accept: '*/*',
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/double',
        'x-github-delivery': guid,
        'x-github-event': input.event,
        'x-github-hook-id': String(HOOK_ID),
        'x-github-hook-installation-target-id': String(core.app.id),
        'x-github-hook-installation-target-type': 'integration',
      },
      deliveredAt: isoNow(),
      redelivery: false,
      statusCode: null,
      status: 'pending',
      duration: 0,
      responseBody: '',
      responseHeaders: {},
    };
    core.deliveries.push(delivery);
    return this.enqueue(delivery);
  }

  redeliver(original: Delivery): Promise<Delivery> {
    const copy: Delivery = {
      ...original,
      id: this.core.ids.next('delivery'),
      redelivery: true,
      deliveredAt: isoNow(),
      statusCode: null,
      status: 'pending',
      duration: 0,
      responseBody: '',
      responseHeaders: {},
    };
    this.core.deliveries.push(copy);
    return this.enqueue(copy);
  }

  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.core.events.once('deliveries-idle', () => resolve()));
  }

  private enqueue(delivery: Delivery): Promise<Delivery> {
    this.pending += 1;
    let attempt: Promise<Delivery>;
    if (this.random) {
      attempt = this.postLate(delivery);
    } else {
      const previous = this.chains.get(delivery.repoKey) ?? Promise.resolve();
      attempt = previous.then(() => this.post(delivery));
      this.chains.set(delivery.repoKey, attempt);
    }
    return attempt.finally(() => {
      this.pending -= 1;
      if (this.pending === 0) this.core.events.emit('deliveries-idle');
    });
  }

  /** After a random delay; a duplicate goes out after a delay of its own, same id and body. */
  private async postLate(delivery: Delivery): Promise<Delivery> {
    const random = this.random!;
    const maxDelay = this.chaos?.maxDelayMs ?? 40;
    const later = () => new Promise((resolve) => setTimeout(resolve, random() * maxDelay));
    const twice = random() < (this.chaos?.duplicateRate ?? 0.1);
    const first = later().then(() => this.post(delivery));
    if (!twice) return first;
    const again = later().then(() => this.postAgain(delivery));
    await Promise.all([first, again]);
    return delivery;
  }

  /**
   * The same delivery once more, as GitHub sends it when it did not see the first answer: the
   * record keeps the first post's outcome.
   */
  private async postAgain(delivery: Delivery): Promise<void> {
    const { core } = this;
    const url = core.options.webhookUrl;
    if (core.closed || !url || core.webhooksDown) return;
    const body = serialised(delivery.payload);
    const headers = {
      ...delivery.requestHeaders,
      'x-hub-signature-256': await sign(core.options.webhookSecret, body),
    };
    try {
      await postDelivery(url, headers, body, RECEIVER_TIMEOUT_MS);
    } catch {
      // Lost like the first one could have been: the record says how the first post went.
    }
    core.events.emit('webhook-answered', delivery);
  }

  private async post(delivery: Delivery): Promise<Delivery> {
    const { core } = this;
    const started = Date.now();
    delivery.deliveredAt = isoNow();
    const body = serialised(delivery.payload);
    const headers = {
      ...delivery.requestHeaders,
      'x-hub-signature-256': await sign(core.options.webhookSecret, body),
    };
    delivery.requestHeaders = headers;
    core.events.emit('webhook-sent', delivery);
    const url = core.options.webhookUrl;
    if (core.closed) {
      finish(delivery, 0, 'double closed');
    } else if (!url) {
      finish(delivery, 0, 'No webhook URL configured');
    } else if (core.webhooksDown) {
      finish(delivery, 502, 'Invalid HTTP Response: 502');
    } else {
      try {
        const res = await postDelivery(url, headers, body, RECEIVER_TIMEOUT_MS);
        delivery.responseBody = res.text.slice(0, 4096);
        delivery.responseHeaders = Object.fromEntries(
          Object.entries(res.headers).map(([name, value]) => [
            name,
            Array.isArray(value) ? value.join(', ') : (value ?? ''),
          ]),
        );
        const ok = res.status >= 200 && res.status < 300;
        finish(delivery, res.status, ok ? 'OK' : `Invalid HTTP Response: ${res.status}`);
      } catch (error) {
        finish(delivery, 0, `We couldn't deliver this payload: ${String(error)}`);
      }
    }
    delivery.duration = (Date.now() - started) / 1000;
    core.events.emit('webhook-answered', delivery);
    return delivery;
  }
}

// A duplicate post and a redelivery send the same payload object as the first post: its JSON
// is made once.
const bodies = new WeakMap<Record<string, unknown>, string>();

function serialised(payload: Record<string, unknown>): string {
  let body = bodies.get(payload);
  if (body === undefined) bodies.set(payload, (body = JSON.stringify(payload)));
  return body;
}

function finish(delivery: Delivery, code: number, status: string): void {
  delivery.statusCode = code;
  delivery.status = status;
}
