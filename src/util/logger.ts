// The one logger factory: pino, JSON lines to stdout. Secrets are redacted wherever they appear in
// a logged object; tests use `silentLogger()`.
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  readonly level?: LogLevel;
  readonly name?: string;
  /** Where lines go; stdout by default (tests may pass a stream to capture lines). */
  readonly destination?: DestinationStream;
}

const REDACT_PATHS = [
  'password',
  'adminPassword',
  '*.password',
  '*.adminPassword',
  'headers.authorization',
  '*.headers.authorization',
];

export function createLogger(options: LoggerOptions = {}): Logger {
  const settings = {
    level: options.level ?? 'info',
    name: options.name ?? 'analytics-server',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
