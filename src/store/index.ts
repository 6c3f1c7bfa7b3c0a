import type { DatabaseHandle } from './database.js';
import { DeliveryStore } from './deliveries.js';
import { RepositoryStore } from './repositories.js';

export interface Store {
  readonly handle: DatabaseHandle;
  readonly deliveries: DeliveryStore;
  readonly repositories: RepositoryStore;
}

export function createStore(handle: DatabaseHandle): Store {
  return {
    handle,
    deliveries: new DeliveryStore(handle.db),
    repositories: new RepositoryStore(handle.db),
  };
}
