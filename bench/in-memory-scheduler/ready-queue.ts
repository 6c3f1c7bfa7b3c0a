import { IndexedHeap } from './indexed-heap.js';
import { candidateKey, compareCandidates, type Candidate } from '../../src/core/scheduler/index.js';

const keyOf = (c: Candidate): string => candidateKey(c.runId, c.taskId);

/**
 * Ready candidates, best first: priority desc, then order asc. Keyed by `${runId}:${taskId}`;
 * pushing a key again replaces the entry (a retry with a new backoff, a priority change).
 */
export class ReadyQueue {
  private readonly heap = new IndexedHeap<Candidate>(keyOf, compareCandidates);

  get size(): number {
    return this.heap.size;
  }

  push(candidate: Candidate): void {
    this.heap.push(candidate);
  }

  pop(): Candidate | undefined {
    return this.heap.pop();
  }

  peek(): Candidate | undefined {
    return this.heap.peek();
  }

  /** Returns the removed candidate, or undefined when the key was not queued. */
  remove(key: string): Candidate | undefined {
    return this.heap.remove(key);
  }

  has(key: string): boolean {
    return this.heap.has(key);
  }

  get(key: string): Candidate | undefined {
    return this.heap.get(key);
  }

  /** Heap order, not priority order: sort if order matters. */
  values(): IterableIterator<Candidate> {
    return this.heap.values();
  }
}
