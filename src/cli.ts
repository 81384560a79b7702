// The server command: configuration → server → graceful shutdown on SIGINT/SIGTERM (a second
// signal forces exit). Loaded by main.ts once the GC settings are in.
import { ConfigError, HelpRequested, loadConfig, redactConfig } from './config.js';
import { createApp, type App } from './app.js';
import { createLogger } from './util/logger.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(`${error.usage}\n`);
      process.exit(error.exitCode);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    throw error;
  }

  const logger = createLogger({ level: config.logLevel });
  logger.debug({ config: redactConfig(config) }, 'configuration');
  if (config.adminCredentialsDefaulted) {
    logger.warn(
      '!!! ADMIN CREDENTIALS ARE THE DEFAULTS (admin/admin). Anyone who can reach this server can administer it. ' +
        'Set --admin-username/--admin-password or ADMIN_USERNAME/ADMIN_PASSWORD. !!!',
    );
  }

  // The handlers go in before the server starts: a signal that arrives while it starts (or right
  // after it announces itself) still closes it gracefully instead of killing it mid-write.
  let app: App | undefined;
  let stopRequested: NodeJS.Signals | undefined;
  let signals = 0;
  const close = (signal: NodeJS.Signals, started: App): void => {
    logger.info({ signal }, 'shutting down (send the signal again to force)');
    started.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const shutdown = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    if (app) close(signal, app);
    else stopRequested = signal;
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  app = await createApp(config, logger);
  logger.info({ baseUrl: app.baseUrl }, `listening on http://${config.host}:${app.port}`);
  if (stopRequested) close(stopRequested, app);
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
