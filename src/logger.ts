import { pino, type Logger } from 'pino';

/** Never let a credential reach a log line, whatever object gets logged. */
const REDACT = [
  'privateKey',
  'webhookSecret',
  'token',
  'password',
  '*.privateKey',
  '*.token',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.headers.authorization',
  'err.request.headers.authorization',
  // Probot collects handler errors in an AggregateError: pino logs them as `aggregateErrors`.
  'err.aggregateErrors[*].request.headers.authorization',
  '*.webhookSecret',
];

export function createLogger(options: {
  level: string;
  destination?: NodeJS.WritableStream;
}): Logger {
  return pino(
    {
      name: 'agent-coordinator',
      level: options.level,
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    options.destination ?? process.stdout,
  );
}
