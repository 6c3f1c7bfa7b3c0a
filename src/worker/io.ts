/** Where the worker writes its job log; tests capture it. */
export interface WorkerIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: WorkerIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};
